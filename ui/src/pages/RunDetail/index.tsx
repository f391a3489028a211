// Test run detail (/report/run/{runId}[/{latency}], spec §2): the run's header, its call
// recording and attachments, then its segments and steps, each step with its own player.
// With {latency} (seconds), steps slower than it stand out. `?compare=1` opens the comparison with
// the last passing run of the test case (Comparison.tsx); `?alert={id}`, set by an alert's runs,
// puts that alert's acknowledge, mute and ticket actions on the page (AlertContext.tsx).
import { useLingui } from "@lingui/react/macro";
import { useLocation, useParams, useSearch } from "wouter";
import { ApiError } from "../../api";
import { downloadRecording, fetchRecording, useRun } from "../../api/queries/runs";
import type { RunDetail, RunStep } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { AudioPlayer } from "../../components/AudioPlayer";
import { ClockIcon, DownloadIcon } from "../../components/icons";
import { fixed } from "../../lib/numbers";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { mos1, msAsSeconds, seconds2, slowerThan, statusKindOfId, statusKindOfResult } from "../Drill/format";
import { StatusBadge } from "../Drill/StatusBadge";
import { NotFoundPage } from "../NotFound";
import { AlertContext } from "./AlertContext";
import { Comparison } from "./Comparison";
import {
  expectsNoSpeech,
  type FocusKind,
  isFailing,
  isSlow,
  jumpTargets,
  type PlacedStep,
  runFocus,
  stepAnchor,
} from "./focus";
import "./RunDetail.css";

export function RunDetailPage() {
  const { t } = useLingui();
  const params = useParams<{ runId?: string; latency?: string }>();
  const id = Number(params.runId);
  const lat = params.latency === undefined ? undefined : Number(params.latency);
  const latency = lat !== undefined && Number.isFinite(lat) && lat >= 0 ? lat : undefined;
  const valid = Number.isInteger(id) && id > 0 && (params.latency === undefined || latency !== undefined);
  const run = useRun(valid ? id : 0);
  if (!valid) return <NotFoundPage />;
  if (run.isError) {
    const e = run.error;
    if (e instanceof ApiError && e.status === 404) return <NotFoundPage />;
    if (e instanceof ApiError && e.status === 403)
      return <AccessDenied reason={t`This test run is not in your test case groups.`} />;
    return (
      <section class="page" data-testid="run-error">
        <h1 class="page-title">{t`Test Run`}</h1>
        <p class="error-text" role="alert">
          {e?.message || t`The test run could not be loaded.`}
        </p>
      </section>
    );
  }
  if (!run.data) {
    return (
      <section class="page" data-testid="run-loading">
        <p class="muted">{t`Please wait ...`}</p>
      </section>
    );
  }
  return <Detail run={run.data} latency={latency} />;
}

/** The page's options in its address: the comparison open, the alert it was reached from. */
function useRunOptions(): { compare: boolean; alertId: number | undefined; setCompare: (on: boolean) => void } {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const q = new URLSearchParams(search);
  const alert = Number(q.get("alert"));
  const setCompare = (on: boolean) => {
    const next = new URLSearchParams(search);
    if (on) next.set("compare", "1");
    else next.delete("compare");
    const qs = next.toString();
    navigate(qs ? `${location}?${qs}` : location, { replace: true });
  };
  return {
    compare: q.get("compare") === "1",
    alertId: Number.isInteger(alert) && alert > 0 ? alert : undefined,
    setCompare,
  };
}

function Detail({ run, latency }: { run: RunDetail; latency?: number }) {
  const { t, i18n } = useLingui();
  const options = useRunOptions();
  const zone = useSiteTimeZone();
  const runId = run.runId;
  const seconds = seconds2(run.runDuration, i18n.locale);
  const sec = (seconds: string) => t`${seconds} sec`;
  const groups = run.groups.map((g) => g.name).join(", ");
  const attachments = run.segments.flatMap((s) => s.steps).filter((s) => !!s.testResult.attachmentUrl);
  const recording = run.recordingUrl;
  const attachmentCount = attachments.length;
  const jumps = new Set(jumpTargets(run, latency).map((s) => s.step.stepId));
  return (
    <section class="page run-detail" data-testid="run-detail">
      <h1 class="page-title">{t`Test Run ${runId}`}</h1>
      {options.alertId !== undefined ? <AlertContext alertId={options.alertId} /> : null}
      {options.compare ? (
        <Comparison run={run} onClose={() => options.setCompare(false)} />
      ) : (
        <div class="run-actions">
          <button
            type="button"
            class="button secondary"
            data-testid="compare-open"
            onClick={() => options.setCompare(true)}
          >
            {t`Compare with the last passing run`}
          </button>
        </div>
      )}
      <RunSummary run={run} latency={latency} />
      <div class="card run-header">
        <h2 class="section-title">{t`Run details`}</h2>
        <dl class="run-facts">
          <Fact label={t`Test Case`} testId="run-case">
            {run.testCaseName}
          </Fact>
          <Fact label={t`Test Case Group`} testId="run-group">
            {groups || "—"}
          </Fact>
          <Fact label={run.channel === "web" ? t`Chatbot` : t`IVR`} testId="run-ivr">
            {run.ivrName}
          </Fact>
          <Fact label={t`Run Type`} testId="run-type">
            {run.runType === "Schedule" ? t`Schedule` : run.runType === "Manual" ? t`Manual` : "—"}
          </Fact>
          <Fact label={t`Status`} testId="run-status">
            <StatusBadge kind={statusKindOfId(run.runStatusId)} stopped={run.runResult === "stopped"} />
          </Fact>
          <Fact label={t`Start Time`} testId="run-time">
            {formatSiteTime(run.runTime, zone)}
          </Fact>
          <Fact label={t`Duration`} testId="run-duration">
            {sec(seconds)}
          </Fact>
          {run.mosCqIn !== null && run.mosCqIn !== undefined ? (
            <Fact label={t`MOS`} testId="run-mos">
              {mos1(run.mosCqIn, i18n.locale)}
            </Fact>
          ) : null}
          {latency !== undefined ? (
            <Fact label={t`Latency threshold`} testId="run-latency">
              {sec(seconds2(latency, i18n.locale))}
            </Fact>
          ) : null}
        </dl>
      </div>

      {run.segments.map((seg) => (
        <div class="card run-segment" key={seg.segmentId} data-testid="segment">
          <h2 class="section-title">{seg.segmentName}</h2>
          <ol class="step-list">
            {seg.steps.map((s) => (
              <Step key={s.stepId} step={s} latency={latency} runId={runId} flagged={jumps.has(s.stepId)} />
            ))}
          </ol>
        </div>
      ))}

      <div class="card run-media">
        <h2 class="section-title">{t`Call Recording`}</h2>
        {recording ? (
          <AudioPlayer
            label={t`Call recording`}
            load={(signal) => fetchRecording(recording, signal)}
            onDownload={() => void downloadRecording(recording, `run-${runId}`)}
            testId="call-player"
          />
        ) : (
          <p class="muted" data-testid="no-recording">
            {t`This run has no call recording.`}
          </p>
        )}
        {attachments.length ? (
          <details class="attachments" data-testid="attachments-section">
            <summary>{t`Attachments (${attachmentCount})`}</summary>
            <ul class="attachment-list" data-testid="attachments">
              {attachments.map((s) => {
                const stepId = s.stepId;
                const url = s.testResult.attachmentUrl ?? "";
                return (
                  <li key={stepId}>
                    <button
                      type="button"
                      class="button secondary small"
                      onClick={() => void downloadRecording(url, `run-${runId}-step-${stepId}`)}
                      data-testid="attachment-download"
                    >
                      <DownloadIcon size={16} /> {t`Step ${stepId} audio`}
                    </button>
                  </li>
                );
              })}
            </ul>
          </details>
        ) : null}
      </div>
    </section>
  );
}

/**
 * The run at a glance and the step that went wrong (or the slowest one): what was expected
 * against what was heard, the latency against its limit, the confidence and the step's audio,
 * with a link to each failing (or slow) step's card.
 */
function RunSummary({ run, latency }: { run: RunDetail; latency?: number }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const focus = runFocus(run, latency);
  const jumps = jumpTargets(run, latency);
  const runSeconds = seconds2(run.runDuration, i18n.locale);
  const caseName = run.testCaseName;
  const when = formatSiteTime(run.runTime, zone);
  const heading: Record<FocusKind, string> = {
    failing: t`Failing step`,
    slow: t`Slow step`,
    warning: t`Step with a warning`,
    slowest: t`Slowest step`,
  };
  return (
    <div class="card run-summary" data-testid="run-summary">
      <div class="run-summary-head">
        <StatusBadge
          kind={statusKindOfId(run.runStatusId)}
          stopped={run.runResult === "stopped"}
          testId="summary-status"
        />
        <strong data-testid="summary-case">{caseName}</strong>
        <span class="muted">{when}</span>
        <span class="muted nowrap">{t`${runSeconds} sec`}</span>
        {run.mosCqIn !== null && run.mosCqIn !== undefined ? (
          <span class="muted nowrap" data-testid="summary-mos">
            {t`MOS ${mos1(run.mosCqIn, i18n.locale)}`}
          </span>
        ) : null}
      </div>
      {focus ? (
        <FocusStep
          kind={focus.kind}
          placed={focus.step}
          heading={heading[focus.kind]}
          latency={latency}
          runId={run.runId}
        />
      ) : (
        <p class="muted">{t`This run has no steps.`}</p>
      )}
      {jumps.length ? (
        <nav class="jump-to" aria-label={t`Jump to a step`} data-testid="jump-to">
          <span class="muted">{t`Jump to:`}</span>
          <ul>
            {jumps.map((j) => {
              const stepId = j.step.stepId;
              const type = j.step.typeDisplayText || j.step.stepType;
              const failing = isFailing(j.step);
              return (
                <li key={stepId}>
                  <a href={`#${stepAnchor(stepId)}`} data-testid="jump-link" data-kind={failing ? "failing" : "slow"}>
                    {failing ? t`${type} #${stepId} (failed)` : t`${type} #${stepId} (slow)`}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>
      ) : null}
    </div>
  );
}

function FocusStep(p: { kind: FocusKind; placed: PlacedStep; heading: string; latency?: number; runId: number }) {
  const { t, i18n } = useLingui();
  const step = p.placed.step;
  const r = step.testResult;
  const stepId = step.stepId;
  const type = step.typeDisplayText || step.stepType;
  const segment = p.placed.segmentName;
  const heading = p.heading;
  const lat = msAsSeconds(r.latency, i18n.locale);
  const max = msAsSeconds(step.promptLatencyMax, i18n.locale);
  const limit = p.latency !== undefined ? seconds2(p.latency, i18n.locale) : max;
  const over = isSlow(step, p.latency);
  const url = r.attachmentUrl;
  const runId = p.runId;
  return (
    <div class={`focus-step focus-${p.kind}`} data-testid="focus-step" data-kind={p.kind} data-step-id={stepId}>
      <h2 class="section-title">
        {t`${heading}: ${type}`} <span class="muted">#{stepId}</span> <span class="muted">· {segment}</span>
      </h2>
      <dl class="focus-facts">
        <Fact label={t`Status`} testId="focus-status">
          <StatusBadge
            kind={statusKindOfResult(r.status)}
            stopped={r.status === "stopped"}
            testId="focus-step-status"
          />
        </Fact>
        <Fact label={t`Expected`} testId="focus-expected">
          {step.prompt || "—"}
        </Fact>
        <Fact label={t`Heard`} testId="focus-heard">
          <Utterance step={step} />
        </Fact>
        <Fact label={p.latency !== undefined ? t`Latency / threshold` : t`Latency / limit`} testId="focus-latency">
          <span class={over ? "over-limit" : undefined}>
            {lat ? t`${lat} sec` : "—"}
            {limit ? ` / ${t`${limit} sec`}` : ""}
          </span>
        </Fact>
        <Fact label={t`Confidence`} testId="focus-confidence">
          {r.confidence === null || r.confidence === undefined ? "—" : fixed(r.confidence, 2, i18n.locale)}
        </Fact>
      </dl>
      {url ? (
        <AudioPlayer
          label={t`Step ${stepId} audio`}
          load={(signal) => fetchRecording(url, signal)}
          onDownload={() => void downloadRecording(url, `run-${runId}-step-${stepId}`)}
          testId="focus-player"
        />
      ) : (
        <p class="muted" data-testid="focus-no-audio">
          {t`This step has no audio.`}
        </p>
      )}
      <p class="focus-more">
        <a href={`#${stepAnchor(stepId)}`} data-testid="focus-jump">
          {t`Show this step among the others`}
        </a>
      </p>
    </div>
  );
}

/** What was heard: '<Utterance not recognized>' when nothing was, except for a step that expects no speech. */
function Utterance({ step }: { step: RunStep }) {
  const { t } = useLingui();
  const u = step.testResult.utterance;
  if (u !== null && u !== undefined) return <>{u}</>;
  return expectsNoSpeech(step) ? (
    <span class="muted" data-no-speech="true">{t`No speech expected`}</span>
  ) : (
    t`<Utterance not recognized>`
  );
}

function Fact({ label, testId, children }: { label: string; testId: string; children: preact.ComponentChildren }) {
  return (
    <div class="run-fact">
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

function Step({ step, latency, runId, flagged }: { step: RunStep; latency?: number; runId: number; flagged: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const r = step.testResult;
  const slow = slowerThan(r.latency, latency);
  const stepId = step.stepId;
  const min = msAsSeconds(step.promptLatencyMin, i18n.locale);
  const max = msAsSeconds(step.promptLatencyMax, i18n.locale);
  const inc = msAsSeconds(step.incompleteTimeout, i18n.locale);
  const com = msAsSeconds(step.completeTimeout, i18n.locale);
  const lat = msAsSeconds(r.latency, i18n.locale);
  const recDur = seconds2(r.recordingDuration, i18n.locale);
  const sec = (seconds: string) => (seconds ? t`${seconds} sec` : "—");
  const url = r.attachmentUrl;
  const latencyText = seconds2(latency, i18n.locale);
  return (
    <li
      class={slow ? "step slow" : "step"}
      id={stepAnchor(stepId)}
      tabIndex={flagged ? -1 : undefined}
      data-testid="step"
      data-step-id={stepId}
      data-slow={slow ? "true" : undefined}
    >
      <div class="step-head">
        <span class="step-type">{step.typeDisplayText || step.stepType}</span>
        <span class="muted">#{stepId}</span>
        <StatusBadge kind={statusKindOfResult(r.status)} stopped={r.status === "stopped"} testId="step-status" />
        {slow ? (
          <span class="slow-tag" data-testid="slow-tag">
            <ClockIcon size={16} /> {t`Slower than ${latencyText} sec`}
          </span>
        ) : null}
      </div>
      <dl class="step-facts">
        <Fact label={t`Prompt`} testId="step-prompt">
          {step.prompt || "—"}
        </Fact>
        <Fact label={t`Latency limits`} testId="step-limits">
          {min || max ? sec(`${min || "—"} – ${max || "—"}`) : "—"}
        </Fact>
        <Fact label={t`Incomplete timeout`} testId="step-incomplete">
          {sec(inc)}
        </Fact>
        <Fact label={t`Complete timeout`} testId="step-complete">
          {sec(com)}
        </Fact>
        <Fact label={t`Utterance`} testId="step-utterance">
          <Utterance step={step} />
        </Fact>
        <Fact label={t`Latency`} testId="step-latency">
          {sec(lat)}
        </Fact>
        <Fact label={t`Confidence`} testId="step-confidence">
          {r.confidence === null || r.confidence === undefined ? "—" : fixed(r.confidence, 2, i18n.locale)}
        </Fact>
        <Fact label={t`Recording duration`} testId="step-recording-duration">
          {sec(recDur)}
        </Fact>
        <Fact label={t`Start Time`} testId="step-start">
          {formatSiteTime(r.startTime, zone) || "—"}
        </Fact>
        <Fact label={t`End Time`} testId="step-end">
          {formatSiteTime(r.endTime, zone) || "—"}
        </Fact>
      </dl>
      {url ? (
        <AudioPlayer
          label={t`Step ${stepId} audio`}
          load={(signal) => fetchRecording(url, signal)}
          onDownload={() => void downloadRecording(url, `run-${runId}-step-${stepId}`)}
          testId="step-player"
        />
      ) : null}
    </li>
  );
}
