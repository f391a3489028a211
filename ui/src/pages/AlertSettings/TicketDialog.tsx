// The alert setting form's ticket details: the line under Attach Ticket that says whom the
// tickets go to, and the dialog where they are chosen.
import { useLingui } from "@lingui/react/macro";
import { useEffect } from "react";
import type { JiraProject, JiraUser } from "../../api/types";
import { controlProps, Field, FormActions, TextField } from "../../components/Field";
import { Modal } from "../../components/Modal";
import { useForm } from "../../lib/form";

export interface Ticket {
  jiraAssignee: string;
  jiraProject: string;
  jiraUsername: string;
}

/** The line under Attach Ticket: whom the tickets go to, by Jira's names; a value Jira does not
 * know is said to be so. */
export function TicketSummary({
  person,
  assignee,
  project,
  projectKey,
}: {
  /** Jira's name; undefined: Jira does not know the value; null: Jira's list is not there. */
  person: string | null | undefined;
  assignee: string;
  project: string | null | undefined;
  projectKey: string;
}) {
  const { t } = useLingui();
  const who = !assignee ? t`nobody` : person === null ? assignee : (person ?? t`${assignee} (not a Jira account)`);
  const where = !projectKey
    ? t`none`
    : project === null
      ? projectKey
      : (project ?? t`${projectKey} (not a Jira project)`);
  return <>{t`Tickets go to ${who} in project ${where}.`}</>;
}

type TicketField = "jiraAssignee" | "jiraProject";

/** The ticket detail dialog (spec §2 'Alert setting form': assignee, project, username): the
 * assignee and the project are picked from Jira's own lists (section 7's `jira/v1/users` and
 * `jira/v1/projects`), so that a ticket is never opened for a person Jira does not know; a
 * stored value Jira does not know stays listed, marked, and must be replaced before saving.
 * 'Save Changes' returns them to the form. */
export function TicketDialog({
  value,
  people,
  projects,
  loading,
  onClose,
  onSave,
}: {
  value: Ticket | null;
  people: JiraUser[] | undefined;
  projects: JiraProject[] | undefined;
  loading: boolean;
  onClose: () => void;
  onSave: (t: Ticket) => void;
}) {
  const { t } = useLingui();
  const known = {
    jiraAssignee: (x: string) => !people?.length || people.some((p) => p.accountId === x),
    jiraProject: (x: string) => !projects?.length || projects.some((p) => p.key === x),
  };
  const unknown = {
    jiraAssignee: t`Not a Jira account: choose a person from Jira's list`,
    jiraProject: t`Not a Jira project: choose one from Jira's list`,
  };
  const form = useForm<Ticket, TicketField, string>({
    initial: { jiraAssignee: "", jiraProject: "", jiraUsername: "" },
    validate: (x) => {
      const e: Partial<Record<TicketField, string>> = {};
      for (const k of ["jiraAssignee", "jiraProject"] as const) {
        if (!x[k]) e[k] = t`Required`;
        else if (!known[k](x[k])) e[k] = unknown[k];
      }
      // The username is not sent to Jira (the console's own account opens every ticket).
      return e;
    },
  });
  const d = form.values;
  useEffect(() => {
    if (value) {
      form.load(value);
      form.setErrors({});
    }
  }, [value]);
  // A stored value Jira does not know is marked as soon as Jira's lists are there.
  const err = (k: TicketField) =>
    form.errors[k] ?? (value !== null && !loading && d[k] && !known[k](d[k]) ? unknown[k] : undefined);
  const assignee = d.jiraAssignee;
  const projectKey = d.jiraProject;
  return (
    <Modal open={value !== null} title={t`Ticket Details`} onClose={onClose} size="small" testId="ticket-dialog">
      <form
        class="form ticket-form"
        onSubmit={(e) => {
          e.preventDefault();
          const x = {
            jiraAssignee: d.jiraAssignee.trim(),
            jiraProject: d.jiraProject.trim(),
            jiraUsername: d.jiraUsername.trim(),
          };
          if (form.check(x)) onSave(x);
        }}
        noValidate
        aria-busy={loading}
      >
        <Field id="ticket-assignee" label={t`Assignee`} required error={err("jiraAssignee")}>
          <select
            {...controlProps("ticket-assignee", true, err("jiraAssignee"))}
            value={d.jiraAssignee}
            onChange={(e) => form.set({ jiraAssignee: e.currentTarget.value }, "jiraAssignee")}
            data-testid="input-assignee"
          >
            <option value="">{loading ? t`Please wait ...` : t`Select`}</option>
            {assignee && !known.jiraAssignee(assignee) ? (
              <option value={assignee}>{t`${assignee} (not a Jira account)`}</option>
            ) : null}
            {d.jiraAssignee && !people?.length ? <option value={d.jiraAssignee}>{d.jiraAssignee}</option> : null}
            {(people ?? []).map((p) => (
              <option key={p.accountId} value={p.accountId}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="ticket-project" label={t`Project`} required error={err("jiraProject")}>
          <select
            {...controlProps("ticket-project", true, err("jiraProject"))}
            value={d.jiraProject}
            onChange={(e) => form.set({ jiraProject: e.currentTarget.value }, "jiraProject")}
            data-testid="input-project"
          >
            <option value="">{loading ? t`Please wait ...` : t`Select`}</option>
            {projectKey && !known.jiraProject(projectKey) ? (
              <option value={projectKey}>{t`${projectKey} (not a Jira project)`}</option>
            ) : null}
            {d.jiraProject && !projects?.length ? <option value={d.jiraProject}>{d.jiraProject}</option> : null}
            {(projects ?? []).map((p) => (
              <option key={p.key} value={p.key}>
                {`${p.name} (${p.key})`}
              </option>
            ))}
          </select>
        </Field>
        <TextField
          id="ticket-username"
          label={t`Username`}
          required
          value={d.jiraUsername}
          onValue={(x) => form.set({ jiraUsername: x })}
          testId="input-username"
        />
        <FormActions onCancel={onClose} saveLabel={t`Save Changes`} />
      </form>
    </Modal>
  );
}
