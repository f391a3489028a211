// 'Compare with the last passing run of this test case': the run's steps beside the same steps
// of the newest run of its test case that passed before it, expected and heard text, latency
// against its limit, and the runs' MOS; it opens on the first step that differs, highlighted
// (compare.ts says what differs).
import { useLingui } from "@lingui/react/macro";
import { useEffect, useMemo, useRef } from "react";
import { Link } from "wouter";
import { useLastPassing, useRun } from "../../api/queries/runs";
import type { RunDetail, RunStep } from "../../api/types";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { mos1, msAsSeconds, seconds2, statusKindOfId, statusKindOfResult } from "../Drill/format";
import { runPath } from "../Drill/links";
import { StatusBadge } from "../Drill/StatusBadge";
import { type Difference, firstDifference, lastPassingOf, pairAnchor, pairSteps, type StepPair } from "./compare";
import { expectsNoSpeech, isSlow } from "./focus";

export function Comparison({ run, onClose }: { run: RunDetail; onClose: () => void }) {
  const { t } = useLingui();
  const last = useLastPassing(run, lastPassingOf, true);
  const before = useRun(last.data?.runId ?? 0);
  return (
    <section class="card run-compare" aria-labelledby="compare-title" data-testid="run-compare">
      <div class="compare-head">
        <h2 class="section-title" id="compare-title">{t`Comparison with the last passing run`}</h2>
        <button type="button" class="button secondary small" data-testid="compare-close" onClick={onClose}>
          {t`Close the comparison`}
        </button>
      </div>
      {last.isError || before.isError ? (
        <p class="error-text" role="alert" data-testid="compare-error">
          {t`The last passing run could not be loaded.`}
        </p>
      ) : last.data === null ? (
        <p class="muted" data-testid="compare-none">
          {t`No run of this test case passed before this one.`}
        </p>
      ) : !before.data ? (
        <p class="muted" data-testid="compare-loading">{t`Please wait ...`}</p>
      ) : (
        <Compared run={run} before={before.data} />
      )}
    </section>
  );
}

function Compared({ run, before }: { run: RunDetail; before: RunDetail }) {
  const { t } = useLingui();
  const pairs = useMemo(() => pairSteps(run, before), [run, before]);
  const first = firstDifference(pairs);
  const firstRow = useRef<HTMLLIElement>(null);
  // Open on the first difference: scrolled to and focused, once.
  useEffect(() => {
    const el = firstRow.current;
    if (!el) return;
    el.scrollIntoView({ block: "center" });
    el.focus({ preventScroll: true });
  }, [before.runId]);
  const firstPair = first >= 0 ? pairs[first] : undefined;
  const reasons = useDifferenceText();
  return (
    <>
      <div class="compare-runs" data-testid="compare-runs">
        <RunSide run={run} title={t`This run`} testId="compare-run-this" />
        <RunSide run={before} title={t`Last passing run`} testId="compare-run-before" link />
      </div>
      {firstPair ? (
        <p class="compare-first" data-testid="compare-first">
          <a href={`#${pairAnchor(firstPair.key)}`}>
            {(() => {
              const step = firstPair.now ?? firstPair.before;
              const type = step ? step.typeDisplayText || step.stepType : "";
              const id = step?.stepId ?? "";
              const segment = firstPair.segmentName;
              const why = firstPair.differences.map((d) => reasons[d]).join(", ");
              return t`First difference: ${type} #${id} (${segment}): ${why}`;
            })()}
          </a>
        </p>
      ) : (
        <p class="compare-first is-same" data-testid="compare-same">
          {t`The steps agree with the last passing run.`}
        </p>
      )}
      <ol class="compare-list" data-testid="compare-list">
        {pairs.map((p, i) => (
          <PairRow key={p.key} pair={p} first={i === first} rowRef={i === first ? firstRow : undefined} />
        ))}
      </ol>
    </>
  );
}

function useDifferenceText(): Record<Difference, string> {
  const { t } = useLingui();
  return {
    missing: t`not in this run`,
    added: t`not in the passing run`,
    status: t`result differs`,
    heard: t`heard text differs`,
    expected: t`expected text differs`,
    slow: t`over its latency limit in one run only`,
  };
}

function RunSide({ run, title, testId, link }: { run: RunDetail; title: string; testId: string; link?: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const runId = run.runId;
  const seconds = seconds2(run.runDuration, i18n.locale);
  return (
    <div class="compare-run" data-testid={testId} data-run-id={runId}>
      <h3 class="subsection-title">
        {title}: {link ? <Link href={runPath(runId)}>{t`Test Run ${runId}`}</Link> : t`Test Run ${runId}`}
      </h3>
      <p class="compare-run-facts">
        <StatusBadge kind={statusKindOfId(run.runStatusId)} stopped={run.runResult === "stopped"} />
        <span>{formatSiteTime(run.runTime, zone, i18n.locale)}</span>
        <span class="nowrap">{t`${seconds} sec`}</span>
        {run.mosCqIn !== null && run.mosCqIn !== undefined ? (
          <span class="nowrap" data-testid="compare-mos">
            {t`MOS ${mos1(run.mosCqIn, i18n.locale)}`}
          </span>
        ) : null}
      </p>
    </div>
  );
}

function PairRow({
  pair,
  first,
  rowRef,
}: {
  pair: StepPair;
  first: boolean;
  rowRef?: { current: HTMLLIElement | null };
}) {
  const { t } = useLingui();
  const reasons = useDifferenceText();
  const step = pair.now ?? pair.before;
  const type = step ? step.typeDisplayText || step.stepType : "";
  const differs = pair.differences.length > 0;
  return (
    <li
      ref={rowRef}
      id={pairAnchor(pair.key)}
      class={`compare-row${differs ? " differs" : ""}${first ? " is-first" : ""}`}
      tabIndex={first ? -1 : undefined}
      data-testid="compare-row"
      data-key={pair.key}
      data-differs={differs ? "true" : "false"}
      data-first={first ? "true" : undefined}
    >
      <div class="compare-row-head">
        <span class="step-type">{type}</span>
        <span class="muted">
          #{step?.stepId} · {pair.segmentName}
        </span>
        {differs ? (
          <span class="compare-why" data-testid="compare-why">
            {(() => {
              const why = pair.differences.map((d) => reasons[d]).join(", ");
              return first ? t`First difference: ${why}` : why;
            })()}
          </span>
        ) : null}
      </div>
      <div class="compare-sides">
        <StepSide step={pair.now} label={t`This run`} pair={pair} side="now" />
        <StepSide step={pair.before} label={t`Last passing run`} pair={pair} side="before" />
      </div>
    </li>
  );
}

function StepSide(p: { step?: RunStep; label: string; pair: StepPair; side: "now" | "before" }) {
  const { t, i18n } = useLingui();
  const s = p.step;
  const d = new Set(p.pair.differences);
  if (!s) {
    return (
      <div class="compare-side is-absent" data-testid={`compare-${p.side}`}>
        <p class="compare-side-label">{p.label}</p>
        <p class="muted">{t`No such step`}</p>
      </div>
    );
  }
  const r = s.testResult;
  const lat = msAsSeconds(r.latency, i18n.locale);
  const max = msAsSeconds(s.promptLatencyMax, i18n.locale);
  const mark = (k: Difference) => (d.has(k) ? " is-different" : "");
  return (
    <div class="compare-side" data-testid={`compare-${p.side}`}>
      <p class="compare-side-label">{p.label}</p>
      <dl class="compare-facts">
        <div class={`compare-fact${mark("status")}`}>
          <dt>{t`Status`}</dt>
          <dd>
            <StatusBadge kind={statusKindOfResult(r.status)} stopped={r.status === "stopped"} />
          </dd>
        </div>
        <div class={`compare-fact${mark("expected")}`}>
          <dt>{t`Expected`}</dt>
          <dd data-testid="compare-expected">{s.prompt || "—"}</dd>
        </div>
        <div class={`compare-fact${mark("heard")}`}>
          <dt>{t`Heard`}</dt>
          <dd data-testid="compare-heard">
            {r.utterance !== null && r.utterance !== undefined
              ? r.utterance
              : expectsNoSpeech(s)
                ? t`No speech expected`
                : t`<Utterance not recognized>`}
          </dd>
        </div>
        <div class={`compare-fact${mark("slow")}`}>
          <dt>{t`Latency / limit`}</dt>
          <dd data-testid="compare-latency">
            <span class={isSlow(s) ? "over-limit" : undefined}>
              {lat ? t`${lat} sec` : "—"}
              {max ? ` / ${t`${max} sec`}` : ""}
            </span>
          </dd>
        </div>
      </dl>
    </div>
  );
}
