// The alert setting form (/report/setting/{id}; id 0 = new; spec §2 'Alert setting form', §5):
// label text, test case group, contact group, number of failures, email subject, voice message,
// sms prefix, attach recording (voice groups, or before a group is chosen), attach ticket (offered
// when a Jira is configured; opens the ticket detail dialog, whose assignee and project are
// picked from Jira's own lists; the tickets Jira refused are shown with its reason), notify on
// recovery, active, the failure and warning statuses the group's channel offers, and the
// schedule picker. A successful save returns to the list, which reloads.
import { useLingui } from "@lingui/react/macro";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useLocation, useParams } from "wouter";
import { ApiError } from "../../api";
import {
  useAlertSetting,
  useAlertStatuses,
  useContactGroups,
  useSaveAlertSetting,
} from "../../api/queries/alertSettings";
import { groupsQuery } from "../../api/queries/groups";
import { useJiraConfig, useJiraProjects, useJiraUsers } from "../../api/queries/jira";
import type { AlertStatus, JiraProject, JiraUser } from "../../api/types";
import { Refused } from "../../components/AccessDenied";
import { controlProps, Field, FormActions, TextField } from "../../components/Field";
import { Modal } from "../../components/Modal";
import { showError, showSuccess } from "../../lib/banners";
import { ROUTES } from "../../lib/nav";
import { countSelected } from "../../lib/schedule";
import { canWrite, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useApiFlavor } from "../../lib/tenant";
import { NotFoundPage } from "../NotFound";
import {
  type AlertSettingFormValues,
  type Errors,
  ESCALATION_DELAY_MAX,
  emptyForm,
  FAILURE_CHOICES,
  type FieldName,
  fromSetting,
  type Rule,
  showsAttachRecording,
  statusesFor,
  toSave,
  validateAlertSetting,
} from "./rules";
import { SchedulePicker } from "./SchedulePicker";
import { WaitingTickets } from "./WaitingTickets";
import "./AlertSettings.css";

export function AlertSettingEditPage() {
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  if (!Number.isInteger(id) || id < 0) return <NotFoundPage />;
  return <AlertSettingForm key={id} id={id} />;
}

interface Ticket {
  jiraAssignee: string;
  jiraProject: string;
  jiraUsername: string;
}

function AlertSettingForm({ id }: { id: number }) {
  const { t } = useLingui();
  const [, navigate] = useLocation();
  const me = useStore(session);
  const write = canWrite(me);
  const creating = id === 0;
  const setting = useAlertSetting(id);
  const groups = useQuery(groupsQuery());
  const lists = useContactGroups();
  const statuses = useAlertStatuses();
  const save = useSaveAlertSetting();
  const [v, setV] = useState<AlertSettingFormValues>(emptyForm);
  const [errors, setErrors] = useState<Errors>({});
  const [texts, setTexts] = useState<Partial<Record<FieldName, string>>>({});
  const [ticket, setTicket] = useState<Ticket | null>(null);
  // cxwatch's escalation: offered when the API is cxwatch's own (a vendor's has none).
  const escalation = useApiFlavor() === "cxwatch";
  const jira = useJiraConfig();
  // Attach Ticket is offered with a Jira; without one only to turn off a setting that has it.
  const ticketsOffered = jira.data?.configured === true || v.attachJiraTicket;
  const username = me?.username ?? "";
  const people = useJiraUsers(username, v.attachJiraTicket || ticket !== null);
  const projects = useJiraProjects(username, jira.data?.configured === true && (v.attachJiraTicket || ticket !== null));
  // Jira's name for a stored value; `null` when Jira's list is not there to tell (loading,
  // failed, a vendor's empty list): the value is then shown as stored.
  const personName = (id: string) => (people.data?.length ? people.data.find((p) => p.accountId === id)?.name : null);
  const projectName = (key: string) => {
    if (!projects.data?.length) return null;
    const p = projects.data.find((x) => x.key === key);
    return p ? `${p.name} (${p.key})` : undefined;
  };

  useEffect(() => {
    if (setting.data) setV(fromSetting(setting.data));
  }, [setting.data]);

  const channel = groups.data?.find((g) => g.id === v.groupId)?.channel;
  const offered = statusesFor(statuses.data ?? [], channel);
  const failures = offered.filter((s) => s.statusGroup === "TRS_FAIL");
  const warnings = offered.filter((s) => s.statusGroup === "TRS_WARN");
  // The catalogue's statuses in the interface's language; another status keeps the server's text.
  const statusText = (s: AlertStatus) => (s.code === "FAIL" ? t`Failure` : s.code === "WARN" ? t`Warning` : s.text);

  const ruleText = (field: FieldName, rule: Rule | undefined): string | undefined => {
    switch (rule) {
      case undefined:
        return undefined;
      case "required":
        return t`Required`;
      case "failures":
        return t`number of failures is required`;
      case "statuses":
        return t`at least one failure/warnings is required`;
      case "time":
        return t`24:00 is the end of the day: choose a slot from 00:00 to 23:30`;
      case "delay":
        return t`From 1 to ${ESCALATION_DELAY_MAX} minutes`;
      default:
        return texts[field] || t`This value is not valid`;
    }
  };
  const err = (field: FieldName) => ruleText(field, errors[field]);
  const set = (patch: Partial<AlertSettingFormValues>, ...fields: FieldName[]) => {
    setV((prev) => ({ ...prev, ...patch }));
    if (fields.length)
      setErrors((prev) => {
        const next = { ...prev };
        for (const f of fields) delete next[f];
        return next;
      });
  };
  const toggleStatus = (code: string, on: boolean) =>
    set(
      {
        alertStatus: on ? [...v.alertStatus.filter((c) => c !== code), code] : v.alertStatus.filter((c) => c !== code),
      },
      "alertStatus",
    );

  const submit = async (e: Event) => {
    e.preventDefault();
    const found = validateAlertSetting({
      ...v,
      alertStatus: v.alertStatus.filter((c) => offered.some((s) => s.code === c)),
    });
    setErrors(found);
    setTexts({});
    if (Object.keys(found).length) return;
    try {
      const body = toSave(v, offered, channel, escalation);
      await save.mutateAsync(creating ? body : { ...body, id });
    } catch (failure) {
      if (failure instanceof ApiError && failure.fields.length) {
        const next: Errors = {};
        const msgs: Partial<Record<FieldName, string>> = {};
        for (const f of failure.fields) {
          const field = f.field as FieldName;
          next[field] = "invalid";
          msgs[field] = f.message;
        }
        setErrors(next);
        setTexts(msgs);
      } else if (failure instanceof ApiError) showError(failure.messages);
      return;
    }
    showSuccess(
      creating ? t`Alert setting has been successfully created` : t`Alert setting has been successfully updated`,
    );
    navigate(ROUTES.alertSettings);
  };

  if (setting.isError) return <Refused error={setting.error} fallback={t`The alert setting could not be loaded.`} />;
  const loading = !creating && !setting.data;
  // One form on the page: stable ids (the browser test reads the messages by them).
  const fid = (k: string) => `alert-${k}`;
  const selectedSlots = countSelected(v.week);

  const check = (
    key: keyof AlertSettingFormValues,
    label: string,
    testId: string,
    onChange?: (on: boolean) => void,
  ) => (
    <label class="check-field" data-testid={`field-${testId}`}>
      <input
        type="checkbox"
        checked={v[key] as boolean}
        onChange={(e) => (onChange ?? ((on: boolean) => set({ [key]: on })))(e.currentTarget.checked)}
        data-testid={`input-${testId}`}
      />
      <span>{label}</span>
    </label>
  );

  return (
    <section class="page alert-setting-form" data-testid="alert-setting-form" aria-busy={loading}>
      <h1 class="page-title">{creating ? t`New Alert Setting` : t`Alert Setting`}</h1>
      {creating ? null : <WaitingTickets settingId={id} compact />}
      <form class="form card" onSubmit={submit} noValidate>
        <TextField
          id={fid("name")}
          label={t`Label Text`}
          required
          error={err("name")}
          value={v.name}
          onValue={(x) => set({ name: x }, "name")}
          testId="input-name"
        />
        <Field id={fid("group")} label={t`Test Case Group`} required error={err("testCaseGroupId")}>
          <select
            {...controlProps(fid("group"), true, err("testCaseGroupId"))}
            value={v.groupId || ""}
            onChange={(e) => set({ groupId: Number(e.currentTarget.value) || 0 }, "testCaseGroupId", "alertStatus")}
            data-testid="input-group"
          >
            <option value="">{t`Select`}</option>
            {(groups.data ?? []).map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id={fid("list")} label={t`Contact Group`} required error={err("distributionId")}>
          <select
            {...controlProps(fid("list"), true, err("distributionId"))}
            value={v.distributionId || ""}
            onChange={(e) => set({ distributionId: Number(e.currentTarget.value) || 0 }, "distributionId")}
            data-testid="input-list"
          >
            <option value="">{t`Select`}</option>
            {(lists.data ?? []).map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </Field>
        {escalation ? (
          <div class="escalation-fields" data-testid="field-escalation">
            <Field id={fid("escalation-list")} label={t`Escalate to`} error={err("escalationDistributionId")}>
              <select
                {...controlProps(fid("escalation-list"), false, err("escalationDistributionId"))}
                value={v.escalationDistributionId || ""}
                onChange={(e) =>
                  set(
                    { escalationDistributionId: Number(e.currentTarget.value) || 0 },
                    "escalationDistributionId",
                    "escalationDelayMin",
                  )
                }
                data-testid="input-escalation-list"
              >
                <option value="">{t`No escalation`}</option>
                {(lists.data ?? []).map((l) => (
                  <option key={l.id} value={l.id}>
                    {l.name}
                  </option>
                ))}
              </select>
            </Field>
            {v.escalationDistributionId ? (
              <Field
                id={fid("escalation-delay")}
                label={t`Escalate after (minutes, when nobody acknowledged)`}
                required
                error={err("escalationDelayMin")}
              >
                <input
                  {...controlProps(fid("escalation-delay"), true, err("escalationDelayMin"))}
                  type="number"
                  min={1}
                  max={ESCALATION_DELAY_MAX}
                  step={1}
                  value={v.escalationDelayMin}
                  onInput={(e) => set({ escalationDelayMin: Number(e.currentTarget.value) }, "escalationDelayMin")}
                  data-testid="input-escalation-delay"
                />
              </Field>
            ) : null}
          </div>
        ) : null}
        <Field id={fid("failures")} label={t`Number of Failures`} required error={err("failureToAlert")}>
          <select
            {...controlProps(fid("failures"), true, err("failureToAlert"))}
            value={v.failureToAlert || ""}
            onChange={(e) => set({ failureToAlert: Number(e.currentTarget.value) || 0 }, "failureToAlert")}
            data-testid="input-failures"
          >
            <option value="">{t`Select`}</option>
            {FAILURE_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </Field>
        <TextField
          id={fid("subject")}
          label={t`Email Subject`}
          required
          error={err("emailSubject")}
          value={v.emailSubject}
          onValue={(x) => set({ emailSubject: x }, "emailSubject")}
          testId="input-subject"
        />
        <Field id={fid("voice")} label={t`Voice Message`} required error={err("voiceMessage")}>
          <textarea
            {...controlProps(fid("voice"), true, err("voiceMessage"))}
            rows={2}
            value={v.voiceMessage}
            onInput={(e) => set({ voiceMessage: e.currentTarget.value }, "voiceMessage")}
            data-testid="input-voice"
          />
        </Field>
        <TextField
          id={fid("sms")}
          label={t`SMS Prefix`}
          required
          error={err("smsPrefix")}
          value={v.smsPrefix}
          onValue={(x) => set({ smsPrefix: x }, "smsPrefix")}
          testId="input-sms"
        />
        <div class="check-fields">
          {showsAttachRecording(channel) ? check("attachRecording", t`Attach Recording`, "attach-recording") : null}
          {ticketsOffered
            ? check("attachJiraTicket", t`Attach Ticket`, "attach-ticket", (on) => {
                set({ attachJiraTicket: on });
                if (on)
                  setTicket({
                    jiraAssignee: v.jiraAssignee,
                    jiraProject: v.jiraProject,
                    jiraUsername: v.jiraUsername || username,
                  });
              })
            : null}
          {check("notifyOnRecovery", t`Notify on Recovery`, "recovery")}
          {check("active", t`Active`, "active")}
          {v.attachJiraTicket ? (
            <button
              type="button"
              class="button link"
              onClick={() =>
                setTicket({ jiraAssignee: v.jiraAssignee, jiraProject: v.jiraProject, jiraUsername: v.jiraUsername })
              }
              data-testid="ticket-details"
            >
              {t`Ticket Details`}
            </button>
          ) : null}
          {v.attachJiraTicket ? (
            <p class="ticket-summary" data-testid="ticket-summary">
              {jira.data?.configured === false ? (
                t`No Jira is configured: tickets wait until one is.`
              ) : (
                <TicketSummary
                  person={personName(v.jiraAssignee)}
                  assignee={v.jiraAssignee}
                  project={projectName(v.jiraProject)}
                  projectKey={v.jiraProject}
                />
              )}
            </p>
          ) : null}
        </div>
        <fieldset
          class={err("alertStatus") ? "status-fields has-error" : "status-fields"}
          aria-describedby={err("alertStatus") ? fid("status-error") : undefined}
          data-testid="field-alert-status"
        >
          <legend class="field-label">
            {t`Alert Statuses`}
            <span class="required" aria-hidden="true">
              {" *"}
            </span>
          </legend>
          <div class="status-groups">
            <div class="status-group">
              <span class="status-group-title">{t`Failure`}</span>
              {failures.map((s) => (
                <label class="check-field" key={s.code}>
                  <input
                    type="checkbox"
                    checked={v.alertStatus.includes(s.code)}
                    onChange={(e) => toggleStatus(s.code, e.currentTarget.checked)}
                    data-testid={`status-${s.code}`}
                  />
                  <span>{statusText(s)}</span>
                </label>
              ))}
            </div>
            <div class="status-group">
              <span class="status-group-title">{t`Warning`}</span>
              {warnings.map((s) => (
                <label class="check-field" key={s.code}>
                  <input
                    type="checkbox"
                    checked={v.alertStatus.includes(s.code)}
                    onChange={(e) => toggleStatus(s.code, e.currentTarget.checked)}
                    data-testid={`status-${s.code}`}
                  />
                  <span>{statusText(s)}</span>
                </label>
              ))}
            </div>
          </div>
          {err("alertStatus") ? (
            <span class="field-error" id={fid("status-error")} role="alert" data-testid="error-alertStatus">
              {err("alertStatus")}
            </span>
          ) : null}
        </fieldset>
        <div class="schedule-field" data-testid="field-schedule">
          <div class="schedule-label">
            <span class="field-label" id={fid("schedule-label")}>
              {t`Weekly Schedule`}
            </span>
            <span class="field-help" data-testid="schedule-count">
              {t`${selectedSlots} half hours selected`}
            </span>
            <button
              type="button"
              class="button link"
              onClick={() => set({ week: emptyForm().week }, "schedule")}
              data-testid="schedule-clear"
            >
              {t`Clear`}
            </button>
          </div>
          <SchedulePicker
            id={fid("schedule")}
            week={v.week}
            onChange={(week) => set({ week }, "schedule")}
            onTimeError={() => setErrors((prev) => ({ ...prev, schedule: "time" }))}
            describedBy={err("schedule") ? fid("schedule-error") : undefined}
          />
          {err("schedule") ? (
            <span class="field-error" id={fid("schedule-error")} role="alert" data-testid="error-schedule">
              {err("schedule")}
            </span>
          ) : null}
        </div>
        {write ? <FormActions onCancel={() => navigate(ROUTES.alertSettings)} saving={save.isPending} /> : null}
      </form>
      <TicketDialog
        value={ticket}
        people={people.data}
        projects={projects.data}
        loading={people.isLoading || projects.isLoading}
        onClose={() => setTicket(null)}
        onSave={(x) => {
          set(x);
          setTicket(null);
        }}
      />
    </section>
  );
}

/** The line under Attach Ticket: whom the tickets go to, by Jira's names; a value Jira does not
 * know is said to be so (issue 30, item 10). */
function TicketSummary({
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

/** The ticket detail dialog (spec §2 'Alert setting form': assignee, project, username): the
 * assignee and the project are picked from Jira's own lists (section 7's `jira/v1/users` and
 * `jira/v1/projects`), so that a ticket is never opened for a person Jira does not know; a
 * stored value Jira does not know stays listed, marked, and must be replaced before saving.
 * 'Save Changes' returns them to the form. */
function TicketDialog({
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
  const [d, setD] = useState<Ticket>({ jiraAssignee: "", jiraProject: "", jiraUsername: "" });
  const [errors, setErrors] = useState<Partial<Record<keyof Ticket, string>>>({});
  useEffect(() => {
    if (value) {
      setD(value);
      setErrors({});
    }
  }, [value]);
  const known = {
    jiraAssignee: (x: string) => !people?.length || people.some((p) => p.accountId === x),
    jiraProject: (x: string) => !projects?.length || projects.some((p) => p.key === x),
  };
  const unknown = {
    jiraAssignee: t`Not a Jira account: choose a person from Jira's list`,
    jiraProject: t`Not a Jira project: choose one from Jira's list`,
  };
  const check = (x: Ticket) => {
    const e: Partial<Record<keyof Ticket, string>> = {};
    for (const k of ["jiraAssignee", "jiraProject"] as const) {
      if (!x[k]) e[k] = t`Required`;
      else if (!known[k](x[k])) e[k] = unknown[k];
    }
    // The username is not sent to Jira (the console's own account opens every ticket).
    return e;
  };
  // A stored value Jira does not know is marked as soon as Jira's lists are there.
  const err = (k: "jiraAssignee" | "jiraProject") =>
    errors[k] ?? (value !== null && !loading && d[k] && !known[k](d[k]) ? unknown[k] : undefined);
  const pick = (k: keyof Ticket, x: string) => {
    setD((p) => ({ ...p, [k]: x }));
    setErrors((p) => ({ ...p, [k]: undefined }));
  };
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
          const found = check(x);
          setErrors(found);
          if (Object.keys(found).length) return;
          onSave(x);
        }}
        noValidate
        aria-busy={loading}
      >
        <Field id="ticket-assignee" label={t`Assignee`} required error={err("jiraAssignee")}>
          <select
            {...controlProps("ticket-assignee", true, err("jiraAssignee"))}
            value={d.jiraAssignee}
            onChange={(e) => pick("jiraAssignee", e.currentTarget.value)}
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
            onChange={(e) => pick("jiraProject", e.currentTarget.value)}
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
          onValue={(x) => pick("jiraUsername", x)}
          testId="input-username"
        />
        <FormActions onCancel={onClose} saveLabel={t`Save Changes`} />
      </form>
    </Modal>
  );
}
