// The alert setting form (/report/setting/{id}; id 0 = new; spec §2 'Alert setting form', §5):
// label text, test case group, contact group, number of failures, email subject, voice message,
// sms prefix, attach recording (voice groups, or before a group is chosen), attach ticket (offered
// when a Jira is configured; opens the ticket detail dialog, whose assignee and project are
// picked from Jira's own lists; the tickets Jira refused are shown with its reason), notify on
// recovery, active, the failure and warning statuses the group's channel offers, and the
// schedule picker. A successful save returns to the list, which reloads. Each group of fields
// is a component of its own file; this one holds the state they share.
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
import { Refused } from "../../components/AccessDenied";
import { controlProps, Field, FormActions, TextField } from "../../components/Field";
import { showError, showSuccess } from "../../lib/banners";
import { useForm } from "../../lib/form";
import { ROUTES } from "../../lib/nav";
import { canWrite, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useApiFlavor } from "../../lib/tenant";
import { NotFoundPage } from "../NotFound";
import { EscalationFields } from "./EscalationFields";
import { OptionFields } from "./OptionFields";
import {
  type AlertSettingFormValues,
  ESCALATION_DELAY_MAX,
  emptyForm,
  FAILURE_CHOICES,
  type FieldName,
  fid,
  fromSetting,
  type Rule,
  statusesFor,
  toSave,
  validateAlertSetting,
} from "./rules";
import { ScheduleField } from "./ScheduleField";
import { AlertStatusFields } from "./StatusFields";
import { type Ticket, TicketDialog, TicketSummary } from "./TicketDialog";
import { WaitingTickets } from "./WaitingTickets";
import "./AlertSettings.css";

export function AlertSettingEditPage() {
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  if (!Number.isInteger(id) || id < 0) return <NotFoundPage />;
  return <AlertSettingForm key={id} id={id} />;
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
  const form = useForm<AlertSettingFormValues, FieldName, Rule>({
    initial: emptyForm,
    validate: validateAlertSetting,
    refused: () => "invalid",
  });
  const v = form.values;
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
    if (setting.data) form.load(fromSetting(setting.data));
  }, [setting.data]);

  const channel = groups.data?.find((g) => g.id === v.groupId)?.channel;
  const offered = statusesFor(statuses.data ?? [], channel);

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
      case "hours":
        return t`at least one half hour of the schedule is required`;
      case "delay":
        return t`From 1 to ${ESCALATION_DELAY_MAX} minutes`;
      default:
        return form.serverText(field) || t`This value is not valid`;
    }
  };
  const err = (field: FieldName) => ruleText(field, form.errors[field]);

  const submit = form.submit(
    async (values) => {
      const body = toSave(values, offered, channel, escalation);
      await save.mutateAsync(creating ? body : { ...body, id });
      showSuccess(
        creating ? t`Alert setting has been successfully created` : t`Alert setting has been successfully updated`,
      );
      navigate(ROUTES.alertSettings);
    },
    {
      // Statuses the group's channel no longer offers are not sent, and so do not count.
      checked: { ...v, alertStatus: v.alertStatus.filter((c) => offered.some((s) => s.code === c)) },
      onFailure: (failure) => {
        if (failure instanceof ApiError) showError(failure.messages);
      },
    },
  );

  if (setting.isError) return <Refused error={setting.error} fallback={t`The alert setting could not be loaded.`} />;
  const loading = !creating && !setting.data;
  const select = (
    key: "groupId" | "distributionId" | "failureToAlert",
    field: FieldName,
    testId: string,
    choices: { id: number; name: string | number }[],
    clears: FieldName[] = [],
  ) => (
    <select
      {...controlProps(fid(testId), true, err(field))}
      value={v[key] || ""}
      onChange={(e) => form.set({ [key]: Number(e.currentTarget.value) || 0 }, field, ...clears)}
      data-testid={`input-${testId}`}
    >
      <option value="">{t`Select`}</option>
      {choices.map((c) => (
        <option key={c.id} value={c.id}>
          {c.name}
        </option>
      ))}
    </select>
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
          onValue={(x) => form.set({ name: x }, "name")}
          testId="input-name"
        />
        <Field id={fid("group")} label={t`Test Case Group`} required error={err("testCaseGroupId")}>
          {select("groupId", "testCaseGroupId", "group", groups.data ?? [], ["alertStatus"])}
        </Field>
        <Field id={fid("list")} label={t`Contact Group`} required error={err("distributionId")}>
          {select("distributionId", "distributionId", "list", lists.data ?? [])}
        </Field>
        {escalation ? <EscalationFields form={form} err={err} lists={lists.data ?? []} /> : null}
        <Field id={fid("failures")} label={t`Number of Failures`} required error={err("failureToAlert")}>
          {select(
            "failureToAlert",
            "failureToAlert",
            "failures",
            FAILURE_CHOICES.map((n) => ({ id: n, name: n })),
          )}
        </Field>
        <TextField
          id={fid("subject")}
          label={t`Email Subject`}
          required
          error={err("emailSubject")}
          value={v.emailSubject}
          onValue={(x) => form.set({ emailSubject: x }, "emailSubject")}
          testId="input-subject"
        />
        <Field id={fid("voice")} label={t`Voice Message`} required error={err("voiceMessage")}>
          <textarea
            {...controlProps(fid("voice"), true, err("voiceMessage"))}
            rows={2}
            value={v.voiceMessage}
            onInput={(e) => form.set({ voiceMessage: e.currentTarget.value }, "voiceMessage")}
            data-testid="input-voice"
          />
        </Field>
        <TextField
          id={fid("sms")}
          label={t`SMS Prefix`}
          required
          error={err("smsPrefix")}
          value={v.smsPrefix}
          onValue={(x) => form.set({ smsPrefix: x }, "smsPrefix")}
          testId="input-sms"
        />
        <OptionFields
          form={form}
          channel={channel}
          ticketsOffered={ticketsOffered}
          ticketLine={
            jira.data?.configured === false ? (
              t`No Jira is configured: tickets wait until one is.`
            ) : (
              <TicketSummary
                person={personName(v.jiraAssignee)}
                assignee={v.jiraAssignee}
                project={projectName(v.jiraProject)}
                projectKey={v.jiraProject}
              />
            )
          }
          onAttachTicket={() =>
            setTicket({
              jiraAssignee: v.jiraAssignee,
              jiraProject: v.jiraProject,
              jiraUsername: v.jiraUsername || username,
            })
          }
          onTicketDetails={() =>
            setTicket({ jiraAssignee: v.jiraAssignee, jiraProject: v.jiraProject, jiraUsername: v.jiraUsername })
          }
        />
        <AlertStatusFields form={form} err={err} offered={offered} />
        <ScheduleField form={form} err={err} />
        {write ? <FormActions onCancel={() => navigate(ROUTES.alertSettings)} saving={save.isPending} /> : null}
      </form>
      <TicketDialog
        value={ticket}
        people={people.data}
        projects={projects.data}
        loading={people.isLoading || projects.isLoading}
        onClose={() => setTicket(null)}
        onSave={(x) => {
          form.set(x);
          setTicket(null);
        }}
      />
    </section>
  );
}
