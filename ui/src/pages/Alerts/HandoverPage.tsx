// The handover (/alerts/handover, cxwatch's addition): what opened, was acknowledged, muted or
// closed among my alerts since my previous sign-in (the server remembers it) or the last 8, 12
// or 24 hours, oldest first, each row leading to its alert; printable (the print style leaves
// the console's frame and the controls out). A vendor's API has no handover: the page says so.
import { useLingui } from "@lingui/react/macro";
import { useEffect } from "react";
import { Link } from "wouter";
import { useHandover } from "../../api/queries/alerts";
import type { HandoverEntry } from "../../api/types";
import { Refused } from "../../components/AccessDenied";
import { useUrlParams } from "../../components/useUrlParams";
import { formatSiteTime } from "../../lib/siteTime";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import { countsOf, SINCE_CHOICES, type SinceChoice, sinceOfParam, sinceTime } from "./handover";
import { alertPath } from "./ListPage";
import "./Alerts.css";

export function HandoverPage() {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const cxwatch = useApiFlavor() === "cxwatch";
  const [search, setParams] = useUrlParams();
  const choice = sinceOfParam(new URLSearchParams(search).get("since"));
  const since = sinceTime(choice, new Date());
  const q = useHandover(since, cxwatch);
  const title = t`Handover`;
  useEffect(() => {
    document.title = `${title} – cxwatch`;
    return () => {
      document.title = "cxwatch";
    };
  }, [title]);
  const fmt = (v: string | null | undefined) => (v ? formatSiteTime(v, zone, i18n.locale).slice(0, 16) : "");
  const choiceLabel = (c: SinceChoice) =>
    c === "signin"
      ? t`Since my previous sign-in`
      : c === "8h"
        ? t`Last 8 hours`
        : c === "12h"
          ? t`Last 12 hours`
          : t`Last 24 hours`;
  const kindLabel = (e: HandoverEntry) => {
    switch (e.kind) {
      case "opened":
        return t`Opened`;
      case "acknowledged":
        return t`Acknowledged`;
      case "muted":
        return e.target === "group" ? t`Group muted` : t`Test case muted`;
      case "closed":
        return t`Closed`;
    }
  };
  const detail = (e: HandoverEntry) => {
    const by = e.by ?? "";
    if (e.kind === "acknowledged") return t`by ${by}`;
    if (e.kind === "muted") {
      const until = fmt(e.until);
      return t`until ${until} by ${by}`;
    }
    return "";
  };
  const data = q.data;
  const counts = countsOf(data?.entries ?? []);
  const from = fmt(data?.since);
  const to = fmt(data?.to);
  return (
    <section class="page handover" data-testid="handover">
      <div class="handover-head">
        <h1 class="page-title">{title}</h1>
        <div class="handover-controls no-print">
          <Link href="/alerts" class="button link">
            {t`Back to alerts`}
          </Link>
          <label class="inline-field">
            <span>{t`Period`}</span>
            <select
              value={choice}
              data-testid="handover-since"
              onChange={(e) =>
                setParams({ since: e.currentTarget.value === "signin" ? undefined : e.currentTarget.value })
              }
            >
              {SINCE_CHOICES.map((c) => (
                <option key={c} value={c}>
                  {choiceLabel(c)}
                </option>
              ))}
            </select>
          </label>
          <button type="button" class="button secondary" data-testid="handover-print" onClick={() => window.print()}>
            {t`Print`}
          </button>
        </div>
      </div>
      {!cxwatch ? (
        <p class="muted" data-testid="handover-unavailable">{t`This console's API keeps no handover.`}</p>
      ) : q.error ? (
        <Refused error={q.error} fallback={t`The handover could not be loaded.`} />
      ) : !data ? (
        <p class="muted">{t`Loading…`}</p>
      ) : (
        <>
          <p class="handover-period" data-testid="handover-period">
            {data.sinceSource === "previousSignIn"
              ? t`From your previous sign-in (${from}) to ${to}.`
              : data.sinceSource === "default"
                ? t`No previous sign-in: the last 12 hours, from ${from} to ${to}.`
                : t`From ${from} to ${to}.`}
          </p>
          <ul class="handover-counts" data-testid="handover-counts">
            <li>{t`Opened: ${counts.opened}`}</li>
            <li>{t`Acknowledged: ${counts.acknowledged}`}</li>
            <li>{t`Muted: ${counts.muted}`}</li>
            <li>{t`Closed: ${counts.closed}`}</li>
          </ul>
          {data.entries.length === 0 ? (
            <p class="muted" data-testid="handover-empty">{t`Nothing happened to your alerts in this period.`}</p>
          ) : (
            <section
              class="handover-scroll"
              // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll region keyboard users must reach (axe scrollable-region-focusable)
              tabIndex={0}
              aria-label={title}
            >
              <table class="handover-table" data-testid="handover-table">
                <thead>
                  <tr>
                    <th scope="col">{t`Time`}</th>
                    <th scope="col">{t`What`}</th>
                    <th scope="col">{t`Alert ID`}</th>
                    <th scope="col">{t`Test Case`}</th>
                    <th scope="col">{t`Test Case Group`}</th>
                    <th scope="col">{t`Details`}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.entries.map((e, i) => (
                    <tr key={`${e.kind}-${e.alertId}-${i}`} data-testid="handover-row" data-kind={e.kind}>
                      <td>{fmt(e.time)}</td>
                      <td>{kindLabel(e)}</td>
                      <td>
                        <Link href={alertPath(e.alertId)}>{e.alertId}</Link>
                      </td>
                      <td>{e.testCaseName}</td>
                      <td>{e.testCaseGroupName}</td>
                      <td>{detail(e)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
          {data.truncated ? <p class="muted">{t`More happened than is listed: choose a shorter period.`}</p> : null}
        </>
      )}
    </section>
  );
}
