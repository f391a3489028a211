// A report's delivery schedule (cxwatch's scheduled report mail, from the report list and form):
// daily at a time, weekly on a day or monthly on a day, in the site's time zone, to a
// distribution list, in English or French; its next and last delivery; 'Send now' mails a copy
// to oneself. Administrators with read-write access change it; read-write callers send a copy.
import { useLingui } from "@lingui/react/macro";
import { useId, useState } from "react";
import { ApiError } from "../../api";
import { useContactGroups } from "../../api/queries/alertSettings";
import {
  type ReportSchedule,
  useDeleteSchedule,
  useReportSchedule,
  useSaveSchedule,
  useSendReportNow,
} from "../../api/queries/reportSchedules";
import { controlProps, Field } from "../../components/Field";
import { Modal } from "../../components/Modal";
import { showSuccess } from "../../lib/banners";
import { useForm } from "../../lib/form";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import {
  emptySchedule,
  type Frequency,
  fromSchedule,
  type MailLanguage,
  type ScheduleField,
  type ScheduleFormValues,
  type ScheduleRule,
  toScheduleSave,
  validateSchedule,
} from "./schedule";

export interface ScheduleTarget {
  reportId: number;
  name: string;
}

/** The words of a schedule and its deliveries, shared by the list's column and the dialog. */
export function useScheduleWords() {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const days = [t`Monday`, t`Tuesday`, t`Wednesday`, t`Thursday`, t`Friday`, t`Saturday`, t`Sunday`];
  const when = (s: Pick<ReportSchedule, "frequency" | "time" | "dayOfWeek" | "dayOfMonth">) => {
    const time = s.time;
    if (s.frequency === "daily") return t`Daily at ${time}`;
    if (s.frequency === "weekly") {
      const day = days[s.dayOfWeek - 1] ?? "";
      return t`Weekly on ${day} at ${time}`;
    }
    const day = s.dayOfMonth;
    return t`Monthly on day ${day} at ${time}`;
  };
  const outcome = (o: ReportSchedule["lastOutcome"]) =>
    o === "sent" ? t`sent` : o === "failed" ? t`failed` : o === "queued" ? t`queued` : "";
  const at = (iso: string | null | undefined) => (iso ? formatSiteTime(iso, zone, i18n.locale) : "");
  return { days, when, outcome, at };
}

export function ScheduleDialog(props: {
  target: ScheduleTarget | null;
  /** Administrators with read-write access change the schedule. */
  canEdit: boolean;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const name = props.target?.name ?? "";
  return (
    <Modal
      open={!!props.target}
      onClose={props.onClose}
      title={props.target ? t`Schedule of ${name}` : ""}
      testId="schedule-dialog"
    >
      {props.target ? (
        <ScheduleLoader reportId={props.target.reportId} canEdit={props.canEdit} onClose={props.onClose} />
      ) : null}
    </Modal>
  );
}

/**
 * Mounted at each opening: the schedule is asked again then, and the form starts from that
 * answer, never from a cached one that may be stale (a save a moment ago, another user's).
 */
function ScheduleLoader(props: { reportId: number; canEdit: boolean; onClose: () => void }) {
  const { t } = useLingui();
  const schedule = useReportSchedule(props.reportId, true);
  return schedule.isSuccess && schedule.isFetchedAfterMount ? (
    <ScheduleForm
      key={props.reportId}
      reportId={props.reportId}
      saved={schedule.data ?? null}
      canEdit={props.canEdit}
      onClose={props.onClose}
    />
  ) : (
    <p aria-busy="true">{t`Loading…`}</p>
  );
}

function ScheduleForm(props: {
  reportId: number;
  saved: ReportSchedule | null;
  canEdit: boolean;
  onClose: () => void;
}) {
  const { t, i18n } = useLingui();
  const uid = useId();
  const fid = (k: string) => `${uid}-${k}`;
  const words = useScheduleWords();
  const lists = useContactGroups();
  const save = useSaveSchedule(props.reportId);
  const remove = useDeleteSchedule(props.reportId);
  const send = useSendReportNow(props.reportId);
  const uiLanguage: MailLanguage = i18n.locale.startsWith("fr") ? "fr" : "en";
  // The server's refusals are shown together under the fields (not one by one).
  const form = useForm<ScheduleFormValues, ScheduleField, ScheduleRule>({
    initial: () => (props.saved ? fromSchedule(props.saved) : emptySchedule(uiLanguage)),
    validate: validateSchedule,
  });
  const { values: v, errors, set } = form;
  const [serverError, setServerError] = useState<string[]>([]);
  const [sent, setSent] = useState<{ ok: boolean; text: string } | null>(null);
  const ro = !props.canEdit;

  const err = (k: ScheduleField) => {
    const rule = errors[k];
    if (!rule) return undefined;
    if (rule === "required") return t`Required`;
    if (k === "time") return t`Please enter a time of day, e.g. 08:00`;
    return t`This value is not valid`;
  };

  const checkAndSave = form.submit(
    async (values) => {
      await save.mutateAsync(toScheduleSave(values));
      showSuccess(t`The schedule has been saved.`);
      props.onClose();
    },
    {
      onFailure: (failure) =>
        setServerError(failure instanceof ApiError ? failure.messages : [t`The schedule could not be saved.`]),
    },
  );
  const submit = (e: Event) => {
    setServerError([]);
    return checkAndSave(e);
  };

  const unschedule = async () => {
    try {
      await remove.mutateAsync();
      showSuccess(t`The schedule has been removed.`);
      props.onClose();
    } catch (failure) {
      setServerError(failure instanceof ApiError ? failure.messages : [t`The schedule could not be removed.`]);
    }
  };

  const sendNow = async () => {
    setSent(null);
    try {
      const r = await send.mutateAsync(v.language);
      const to = r.to;
      setSent({ ok: true, text: t`A copy has been mailed to ${to}.` });
    } catch (failure) {
      setSent({
        ok: false,
        text: (failure instanceof ApiError ? failure.messages : [t`The copy could not be sent.`]).join(" "),
      });
    }
  };

  const frequencies: [Frequency, string][] = [
    ["daily", t`Daily`],
    ["weekly", t`Weekly`],
    ["monthly", t`Monthly`],
  ];
  const s = props.saved;
  // The lists the server lets this caller see (a restricted user: only those their groups
  // use); a reader, who changes nothing, is shown only the list the schedule mails.
  const saved = s ? [{ id: s.distributionID, name: s.distributionName }] : [];
  const known = lists.data ?? [];
  const listOptions = ro ? saved : s && !known.some((l) => l.id === s.distributionID) ? [...saved, ...known] : known;
  return (
    <form class="form schedule-form" onSubmit={submit} noValidate data-testid="schedule-form">
      {s ? (
        <dl class="schedule-state" data-testid="schedule-state">
          <dt>{t`Next delivery`}</dt>
          <dd data-testid="schedule-next">{s.active ? words.at(s.nextDelivery) : t`Paused`}</dd>
          <dt>{t`Last delivery`}</dt>
          <dd data-testid="schedule-last">
            {s.lastDelivery ? `${words.at(s.lastDelivery)} (${words.outcome(s.lastOutcome)})` : t`Never`}
          </dd>
        </dl>
      ) : (
        <p class="muted">{t`This report is not scheduled.`}</p>
      )}
      <fieldset disabled={ro} class="schedule-fields">
        <legend class="visually-hidden">{t`Schedule delivery`}</legend>
        <Field id={fid("frequency")} label={t`Frequency`} required>
          <select
            {...controlProps(fid("frequency"), true)}
            value={v.frequency}
            onChange={(e) => set({ frequency: e.currentTarget.value as Frequency })}
            data-testid="schedule-frequency"
          >
            {frequencies.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {v.frequency === "weekly" ? (
          <Field id={fid("day")} label={t`Day of the week`} required error={err("dayOfWeek")}>
            <select
              {...controlProps(fid("day"), true, err("dayOfWeek"))}
              value={v.dayOfWeek}
              onChange={(e) => set({ dayOfWeek: Number(e.currentTarget.value) })}
              data-testid="schedule-day-of-week"
            >
              {words.days.map((d, i) => (
                <option key={d} value={i + 1}>
                  {d}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        {v.frequency === "monthly" ? (
          <Field id={fid("mday")} label={t`Day of the month`} required error={err("dayOfMonth")}>
            <input
              {...controlProps(fid("mday"), true, err("dayOfMonth"))}
              type="number"
              min={1}
              max={31}
              value={v.dayOfMonth}
              onInput={(e) => set({ dayOfMonth: Number(e.currentTarget.value) })}
              data-testid="schedule-day-of-month"
            />
          </Field>
        ) : null}
        <Field id={fid("time")} label={t`Time (site time zone)`} required error={err("time")}>
          <input
            {...controlProps(fid("time"), true, err("time"))}
            type="time"
            value={v.time}
            onInput={(e) => set({ time: e.currentTarget.value })}
            data-testid="schedule-time"
          />
        </Field>
        <Field id={fid("list")} label={t`Distribution List`} required error={err("distributionID")}>
          <select
            {...controlProps(fid("list"), true, err("distributionID"))}
            value={v.distributionId || ""}
            onChange={(e) => set({ distributionId: Number(e.currentTarget.value) || 0 })}
            data-testid="schedule-list"
          >
            <option value="">{t`Select`}</option>
            {listOptions.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id={fid("lang")} label={t`Language of the mail`} required>
          <select
            {...controlProps(fid("lang"), true)}
            value={v.language}
            onChange={(e) => set({ language: e.currentTarget.value as MailLanguage })}
            data-testid="schedule-language"
          >
            <option value="en">English</option>
            <option value="fr">Français</option>
          </select>
        </Field>
        <label class="checkbox">
          <input
            type="checkbox"
            checked={v.active}
            onChange={(e) => set({ active: e.currentTarget.checked })}
            data-testid="schedule-active"
          />
          {t`Active`}
        </label>
      </fieldset>
      {serverError.length ? (
        <p class="field-error" role="alert" data-testid="schedule-error">
          {serverError.join(" ")}
        </p>
      ) : null}
      {sent ? (
        <p class={sent.ok ? "contact-result ok" : "contact-result failed"} role="status" data-testid="send-now-result">
          {sent.text}
        </p>
      ) : null}
      <div class="form-actions">
        <button
          type="button"
          class="button secondary"
          onClick={() => void sendNow()}
          disabled={send.isPending}
          aria-busy={send.isPending}
          data-testid="schedule-send-now"
        >
          {send.isPending ? t`Sending…` : t`Send now`}
        </button>
        {props.canEdit && s ? (
          <button
            type="button"
            class="button secondary danger-text"
            onClick={() => void unschedule()}
            disabled={remove.isPending}
            data-testid="schedule-remove"
          >
            {t`Remove schedule`}
          </button>
        ) : null}
        <button type="button" class="button secondary" onClick={props.onClose} data-testid="schedule-cancel">
          {t`Cancel`}
        </button>
        {props.canEdit ? (
          <button type="submit" class="button primary" disabled={save.isPending} data-testid="schedule-save">
            {t`Save`}
          </button>
        ) : null}
      </div>
    </form>
  );
}
