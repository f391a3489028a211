// The report form (/report/add, /report/edit/{id} which shows 'Report ID'; spec §2, §5): name,
// type (from the group's channel), group, timeframe with a custom date range (default today to
// 6 days later), run type, and for type 6 the warning and failure thresholds.
import { useLingui } from "@lingui/react/macro";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useLocation, useParams } from "wouter";
import { groupsQuery } from "../../api/queries/groups";
import {
  useLatencyThresholds,
  useReport,
  useReportTypes,
  useSaveReport,
  useTimeframes,
} from "../../api/queries/reports";
import type { LatencyThreshold, Report } from "../../api/types";
import { AccessDenied, Refused } from "../../components/AccessDenied";
import { controlProps, Field, FormActions, TextField } from "../../components/Field";
import { showSuccess } from "../../lib/banners";
import { useForm } from "../../lib/form";
import { canWrite, isRestricted, session } from "../../lib/session";
import { siteToday } from "../../lib/siteTime";
import { useStore } from "../../lib/store";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import { NotFoundPage } from "../NotFound";
import { useReportLabels } from "./labels";
import { CUSTOM, emptyForm, type FieldName, LATENCY, type ReportFormValues, toSave, validateReport } from "./rules";
import "./Reports.css";
import { ScheduleDialog } from "./ScheduleDialog";

function fromReport(r: Report): ReportFormValues {
  return {
    name: r.name,
    typeId: r.reportTypeID,
    groupId: r.testCaseGroupID,
    timeframe: r.timeframeName,
    begin: r.timeframeBegin,
    end: r.timeframeEnd,
    runType: r.runType === "Schedule" ? "Schedule" : "Manual",
    warn: r.latencyWarn || null,
    fail: r.latencyFail || null,
  };
}

export function ReportEditPage() {
  const { t } = useLingui();
  const params = useParams<{ id?: string }>();
  const id = params.id ? Number(params.id) : 0;
  const me = useStore(session);
  if (!Number.isInteger(id) || id < 0) return <NotFoundPage />;
  if (!canWrite(me))
    return <AccessDenied reason={t`Your access is read-only: you can see the reports but not change them.`} />;
  return <ReportForm id={id} />;
}

function ReportForm({ id }: { id: number }) {
  const { t } = useLingui();
  const [, navigate] = useLocation();
  const zone = useSiteTimeZone();
  const existing = useReport(id);
  const groups = useQuery(groupsQuery());
  const timeframes = useTimeframes();
  const thresholds = useLatencyThresholds();
  const save = useSaveReport();
  const { typeName, timeframeName, runTypeName } = useReportLabels();
  const me = useStore(session);
  const scheduling = useApiFlavor() === "cxwatch" && id > 0;
  const [scheduleOpen, setScheduleOpen] = useState(false);
  // An error is the spec's sentence (worded below), or the server's own.
  const form = useForm<ReportFormValues, FieldName, string>({
    initial: () => emptyForm(siteToday(new Date(), zone)),
    validate: validateReport,
    refused: (message) => message,
  });
  const { values: v, errors, set } = form;
  const [loaded, setLoaded] = useState(id === 0);

  useEffect(() => {
    if (existing.data && !loaded) {
      form.load(fromReport(existing.data));
      setLoaded(true);
    }
  }, [existing.data, loaded]);

  const group = groups.data?.find((g) => g.id === v.groupId);
  const types = useReportTypes(group?.channel);
  const typeIds = (types.data ?? []).map((x) => x.id);

  // A type the new group's channel lacks (MOS on a web group) is cleared.
  useEffect(() => {
    if (types.data && v.typeId && !typeIds.includes(v.typeId)) set({ typeId: null });
  }, [types.data, v.typeId, typeIds.join(",")]);

  const text = (f: FieldName): string | undefined => {
    const e = errors[f];
    if (!e) return undefined;
    switch (e) {
      case "Please enter a name":
        return t`Please enter a name`;
      case "Please select type":
        return t`Please select type`;
      case "Please select group":
        return t`Please select group`;
      case "Please select threshold warning":
        return t`Please select threshold warning`;
      case "Please select threshold failure":
        return t`Please select threshold failure`;
      case "Please select the start of the custom range.":
        return t`Please select the start of the custom range.`;
      case "The end is before the start.":
        return t`The end is before the start.`;
      default:
        return form.serverText(f) ?? e;
    }
  };

  const submit = form.submit(
    async (values) => {
      const body = toSave(values, typeName(values.typeId ?? 0), group?.name ?? "");
      await save.mutateAsync(id ? { ...body, id } : body);
      showSuccess(id ? t`Edit Report successfully.` : t`New Report successfully created`);
      navigate("/reports");
    },
    { onInvalid: (found) => document.getElementById(`report-${Object.keys(found)[0]}`)?.focus() },
  );

  if (id && existing.isError) return <Refused error={existing.error} fallback={t`The report could not be loaded.`} />;
  if (id && !loaded) return <p class="muted">{t`Please wait ...`}</p>;

  const sorted = [...(groups.data ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <section class="page report-edit" data-testid="report-edit">
      <h1 class="page-title">{id ? t`Edit Report` : t`Add Report`}</h1>
      <form class="card form report-form" onSubmit={submit} noValidate>
        {id ? (
          <p class="report-id" data-testid="report-id">
            {t`Report ID: ${id}`}
          </p>
        ) : null}
        <TextField
          id="report-name"
          label={t`Name`}
          required
          value={v.name}
          onValue={(name) => set({ name })}
          error={text("name")}
          testId="report-name"
        />
        <Field id="report-testCaseGroupID" label={t`Test Case Group`} required error={text("testCaseGroupID")}>
          <select
            {...controlProps("report-testCaseGroupID", true, text("testCaseGroupID"))}
            value={v.groupId ?? ""}
            onChange={(e) => set({ groupId: Number(e.currentTarget.value) || null })}
            data-testid="report-group"
          >
            <option value="">{t`Select a group`}</option>
            {sorted.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name} ({g.channel === "voice" ? t`Voice` : t`Digital`})
              </option>
            ))}
          </select>
        </Field>
        <Field id="report-reportTypeID" label={t`Type`} required error={text("reportTypeID")}>
          <select
            {...controlProps("report-reportTypeID", true, text("reportTypeID"))}
            value={v.typeId ?? ""}
            onChange={(e) => set({ typeId: Number(e.currentTarget.value) || null })}
            data-testid="report-type"
          >
            <option value="">{t`Select a type`}</option>
            {typeIds.map((tid) => (
              <option key={tid} value={tid}>
                {typeName(tid)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="report-timeframe" label={t`Timeframe`}>
          <select
            {...controlProps("report-timeframe", false)}
            value={v.timeframe}
            onChange={(e) => set({ timeframe: e.currentTarget.value })}
            data-testid="report-timeframe"
          >
            {(timeframes.data ?? [CUSTOM]).map((x) => (
              <option key={x} value={x}>
                {timeframeName(x)}
              </option>
            ))}
          </select>
        </Field>
        {v.timeframe === CUSTOM ? (
          <div class="date-range" data-testid="report-range">
            <Field id="report-timeframeBegin" label={t`From`} required error={text("timeframeBegin")}>
              <input
                {...controlProps("report-timeframeBegin", true, text("timeframeBegin"))}
                type="date"
                value={v.begin}
                onInput={(e) => set({ begin: e.currentTarget.value })}
                data-testid="report-begin"
              />
            </Field>
            <Field id="report-timeframeEnd" label={t`To`} error={text("timeframeEnd")}>
              <input
                {...controlProps("report-timeframeEnd", false, text("timeframeEnd"))}
                type="date"
                value={v.end}
                min={v.begin}
                onInput={(e) => set({ end: e.currentTarget.value })}
                data-testid="report-end"
              />
            </Field>
          </div>
        ) : null}
        <Field id="report-runType" label={t`Run Type`}>
          <select
            {...controlProps("report-runType", false)}
            value={v.runType}
            onChange={(e) => set({ runType: e.currentTarget.value === "Schedule" ? "Schedule" : "Manual" })}
            data-testid="report-runtype"
          >
            <option value="Manual">{runTypeName("Manual")}</option>
            <option value="Schedule">{runTypeName("Schedule")}</option>
          </select>
        </Field>
        {v.typeId === LATENCY ? (
          <>
            <Field id="report-latencyWarn" label={t`Threshold Warning`} required error={text("latencyWarn")}>
              <select
                {...controlProps("report-latencyWarn", true, text("latencyWarn"))}
                value={v.warn ?? ""}
                onChange={(e) => set({ warn: Number(e.currentTarget.value) || null })}
                data-testid="report-warn"
              >
                <ThresholdOptions buckets={thresholds.data ?? []} />
              </select>
            </Field>
            <Field id="report-latencyFail" label={t`Threshold Failure`} required error={text("latencyFail")}>
              <select
                {...controlProps("report-latencyFail", true, text("latencyFail"))}
                value={v.fail ?? ""}
                onChange={(e) => set({ fail: Number(e.currentTarget.value) || null })}
                data-testid="report-fail"
              >
                <ThresholdOptions buckets={thresholds.data ?? []} />
              </select>
            </Field>
          </>
        ) : null}
        <FormActions onCancel={() => navigate("/reports")} saving={save.isPending}>
          {scheduling ? (
            <button
              type="button"
              class="button secondary"
              onClick={() => setScheduleOpen(true)}
              data-testid="open-schedule"
            >
              {t`Schedule delivery`}
            </button>
          ) : null}
        </FormActions>
      </form>
      <ScheduleDialog
        target={scheduleOpen ? { reportId: id, name: v.name || existing.data?.name || "" } : null}
        canEdit={!isRestricted(me)}
        onClose={() => setScheduleOpen(false)}
      />
    </section>
  );
}

/** The latency buckets' upper bounds as choices, in seconds as the language writes them. */
function ThresholdOptions({ buckets }: { buckets: LatencyThreshold[] }) {
  const { t, i18n } = useLingui();
  return (
    <>
      <option value="">{t`Select a threshold`}</option>
      {buckets
        .filter((b) => b.uppperBound)
        .map((b) => {
          const secs = i18n.number((b.uppperBound ?? 0) / 1000);
          return (
            <option key={b.id} value={b.uppperBound ?? ""}>
              {t`${secs} sec`}
            </option>
          );
        })}
    </>
  );
}
