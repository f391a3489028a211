// A maintenance window's form (/settings/maintenance/{id}; id 0 = new): the reason,
// once (start and end, site time) or weekly (the alert settings' schedule picker), and what it
// covers: test case groups and single test cases. An ended window, or a read-only account, sees
// the form without Save. 'End now' ends a window that has not ended.
import { useLingui } from "@lingui/react/macro";
import { useQueries, useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useLocation, useParams } from "wouter";
import { ApiError, client } from "../../api";
import { groupsQuery } from "../../api/queries/groups";
import { useEndWindow, useMaintenanceWindow, useSaveWindow } from "../../api/queries/maintenance";
import type { GroupDetail } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { controlProps, Field, FormActions, TextField } from "../../components/Field";
import { MultiSelect } from "../../components/MultiSelect/MultiSelect";
import { showError, showSuccess } from "../../lib/banners";
import { useForm } from "../../lib/form";
import { canWrite, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useSiteTimeZone } from "../../lib/tenant";
import { SchedulePicker } from "../AlertSettings/SchedulePicker";
import { MAINTENANCE_PATH } from "./ListPage";
import { useWindowReason, WindowState } from "./parts";
import {
  emptyWindow,
  fromWindow,
  toWindowSave,
  validateWindow,
  type WindowField,
  type WindowFormValues,
  type WindowRule,
} from "./rules";
import "../AlertSettings/AlertSettings.css";
import "./Maintenance.css";

export function MaintenanceEditPage() {
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  if (!Number.isInteger(id) || id < 0) return <AccessDenied />;
  return <WindowForm key={id} id={id} />;
}

function WindowForm({ id }: { id: number }) {
  const { t } = useLingui();
  const [, navigate] = useLocation();
  const zone = useSiteTimeZone();
  const creating = id === 0;
  const window = useMaintenanceWindow(id);
  // A mute stores no reason: the form offers it worded in the reader's language.
  const reasonOf = useRef(useWindowReason());
  const save = useSaveWindow();
  const end = useEndWindow();
  const groups = useQuery(groupsQuery());
  // Single test cases: those of the groups the caller sees.
  const details = useQueries({
    queries: (groups.data ?? []).map((g) => ({
      queryKey: ["groups", "detail", g.id],
      queryFn: ({ signal }: { signal: AbortSignal }): Promise<GroupDetail> =>
        client.get("/trs/v1/groups/{id}", { signal, path: { id: g.id }, quiet: true }),
      staleTime: 60_000,
    })),
  });
  const cases = new Map<number, string>();
  for (const d of details) for (const c of d.data?.testCases ?? []) cases.set(c.id, c.name);
  for (const c of window.data?.testCases ?? []) cases.set(c.id, c.name);
  const form = useForm<WindowFormValues, WindowField, WindowRule>({
    initial: () => emptyWindow(new Date(), zone),
    validate: (x) => validateWindow(x, new Date(), zone),
    refused: () => "invalid",
    // The server names the single test cases apart; the form shows them with the groups.
    fieldOf: (f) => (f === "testCases" ? "testCaseGroups" : f) as WindowField,
  });
  const v = form.values;
  const set = form.set;

  useEffect(() => {
    if (window.data) form.load({ ...fromWindow(window.data, zone), reason: reasonOf.current(window.data) });
  }, [window.data, zone]);

  const ended = window.data?.state === "ended";
  const write = canWrite(useStore(session)) && !ended;
  const ruleText = (field: WindowField, rule: WindowRule | undefined): string | undefined => {
    switch (rule) {
      case undefined:
        return undefined;
      case "required":
        return field === "testCaseGroups"
          ? t`Choose at least one test case group or test case`
          : field === "schedule"
            ? t`Choose at least one half hour`
            : t`Required`;
      case "order":
        return t`The end must be after the start`;
      case "past":
        return t`The end is in the past`;
      default:
        return form.serverText(field) || t`This value is not valid`;
    }
  };
  const err = (f: WindowField) => ruleText(f, form.errors[f]);

  const submit = form.submit(
    async (values) => {
      await save.mutateAsync({ id, body: toWindowSave(values, zone) });
      showSuccess(creating ? t`The maintenance window has been created` : t`The maintenance window has been updated`);
      navigate(MAINTENANCE_PATH);
    },
    {
      onFailure: (failure) => {
        if (failure instanceof ApiError) showError(failure.messages);
      },
    },
  );

  if (window.isError) return <AccessDenied />;
  const fid = (k: string) => `window-${k}`;
  const groupOptions = (groups.data ?? []).map((g) => ({ value: g.id, label: g.name }));
  const caseOptions = [...cases.entries()]
    .sort((a, b) => a[1].localeCompare(b[1]))
    .map(([value, label]) => ({ value, label }));

  return (
    <section class="page window-form" data-testid="window-form" aria-busy={!creating && !window.data}>
      <h1 class="page-title">{creating ? t`New Maintenance Window` : t`Maintenance Window`}</h1>
      {window.data ? (
        <p>
          <WindowState w={window.data} />
        </p>
      ) : null}
      <form class="form card" onSubmit={submit} noValidate>
        <TextField
          id={fid("reason")}
          label={t`Reason`}
          required
          error={err("reason")}
          value={v.reason}
          onValue={(x) => set({ reason: x }, "reason")}
          testId="input-reason"
          readOnly={!write}
        />
        <fieldset class="kind-choice" disabled={!write}>
          <legend class="field-label">{t`Repeats`}</legend>
          <label class="check-field">
            <input
              type="radio"
              name="kind"
              checked={v.kind === "once"}
              onChange={() => set({ kind: "once" }, "schedule")}
              data-testid="kind-once"
            />
            <span>{t`Once`}</span>
          </label>
          <label class="check-field">
            <input
              type="radio"
              name="kind"
              checked={v.kind === "weekly"}
              onChange={() => set({ kind: "weekly" }, "startTime", "endTime")}
              data-testid="kind-weekly"
            />
            <span>{t`Every week`}</span>
          </label>
        </fieldset>
        {v.kind === "once" ? (
          <div class="time-fields">
            <Field id={fid("start")} label={t`Start (site time)`} required error={err("startTime")}>
              <input
                {...controlProps(fid("start"), true, err("startTime"))}
                type="datetime-local"
                value={v.start}
                readOnly={!write}
                onInput={(e) => set({ start: e.currentTarget.value }, "startTime", "endTime")}
                data-testid="input-start"
              />
            </Field>
            <Field id={fid("end")} label={t`End (site time)`} required error={err("endTime")}>
              <input
                {...controlProps(fid("end"), true, err("endTime"))}
                type="datetime-local"
                value={v.end}
                readOnly={!write}
                onInput={(e) => set({ end: e.currentTarget.value }, "endTime")}
                data-testid="input-end"
              />
            </Field>
          </div>
        ) : (
          <div class={err("schedule") ? "field has-error" : "field"} data-testid="field-schedule">
            <span class="field-label">{t`Half hours of the week (site time)`}</span>
            <SchedulePicker
              id={fid("schedule")}
              week={v.week}
              onChange={(week) => write && set({ week }, "schedule")}
              onTimeError={() => undefined}
              describedBy={err("schedule") ? fid("schedule-error") : undefined}
            />
            {err("schedule") ? (
              <span class="field-error" id={fid("schedule-error")} role="alert">
                {err("schedule")}
              </span>
            ) : null}
          </div>
        )}
        <div class={err("testCaseGroups") ? "field has-error" : "field"} data-testid="field-covers">
          <MultiSelect
            label={t`Test Case Groups`}
            options={groupOptions}
            selected={v.groupIds}
            onChange={(ids) => set({ groupIds: ids }, "testCaseGroups")}
            summary={(() => {
              const n = v.groupIds.length;
              const m = groupOptions.length;
              return t`${n} of ${m} selected`;
            })()}
            testId="input-window-groups"
            disabled={!write}
          />
          <MultiSelect
            label={t`Single test cases`}
            options={caseOptions}
            selected={v.caseIds}
            onChange={(ids) => set({ caseIds: ids }, "testCaseGroups")}
            summary={(() => {
              const n = v.caseIds.length;
              const m = caseOptions.length;
              return t`${n} of ${m} selected`;
            })()}
            testId="input-window-cases"
            disabled={!write}
          />
          {err("testCaseGroups") ? (
            <span class="field-error" role="alert" data-testid="error-window-covers">
              {err("testCaseGroups")}
            </span>
          ) : null}
        </div>
        <FormActions onCancel={() => navigate(MAINTENANCE_PATH)} saving={save.isPending} noSave={!write}>
          {write && !creating ? (
            <button
              type="button"
              class="button secondary"
              data-testid="form-end-window"
              disabled={end.isPending}
              onClick={() =>
                end.mutate(id, {
                  onSuccess: () => {
                    showSuccess(t`The maintenance window has ended`);
                    navigate(MAINTENANCE_PATH);
                  },
                })
              }
            >
              {t`End now`}
            </button>
          ) : null}
        </FormActions>
      </form>
    </section>
  );
}
