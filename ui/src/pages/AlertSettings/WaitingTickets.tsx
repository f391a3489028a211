// The auto tickets the alert engine has not opened yet, and why: Jira's
// refusal or why Jira was not reached, the attempts, and when the next one is due. Shown where
// the administrator looks: above the Auto Tickets list (every waiting ticket) and on the alert
// setting form (how many, the latest reason, a link to the list). Nothing under a vendor's API
// (it has no such call) or when no ticket waits.
import { plural } from "@lingui/core/macro";
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { useJiraConfig, useWaitingAutoTickets } from "../../api/queries/jira";
import type { WaitingAutoTicket } from "../../api/types";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";

export function WaitingTickets({ settingId, compact = false }: { settingId: number; compact?: boolean }) {
  const { t, i18n } = useLingui();
  const waiting = useWaitingAutoTickets(settingId);
  const jira = useJiraConfig();
  const zone = useSiteTimeZone();
  const list = waiting.data ?? [];
  if (!list.length) return null;
  const noJira = jira.data?.configured === false;
  const n = list.length;
  const title = plural(n, {
    one: "# ticket could not be opened in Jira",
    other: "# tickets could not be opened in Jira",
  });
  // Jira's own words stay as Jira wrote them (English).
  const why = (w: WaitingAutoTicket) => {
    if (w.reason) return <span lang="en">{w.reason}</span>;
    if (noJira) return t`No Jira is configured: the ticket waits until one is.`;
    return t`Not tried yet.`;
  };
  const when = (iso: string) => formatSiteTime(iso, zone, i18n.locale) || iso;
  const latest = list[0];
  return (
    <div class="waiting-tickets" role="alert" data-testid="waiting-tickets" data-count={n}>
      <p class="waiting-title">
        <strong>{title}</strong>
      </p>
      {compact ? (
        <>
          <p class="waiting-reason" data-testid="waiting-reason">
            {t`Jira's answer:`} {why(latest)}
          </p>
          <p class="waiting-help">
            {t`Choose the assignee and the project from Jira's lists and save: the waiting tickets are tried again at once.`}{" "}
            <Link href={`/report/setting/autojiratickets/${settingId}`} data-testid="waiting-link">
              {t`See the auto tickets`}
            </Link>
          </p>
        </>
      ) : (
        <ul class="waiting-list">
          {list.map((w) => {
            const alert = w.alertId;
            const attempts = w.attempts;
            const next = when(w.nextAttempt);
            return (
              <li key={w.id} data-testid="waiting-ticket">
                <span class="waiting-head">
                  <Link href={`/alert/${alert}`}>{t`Alert ${alert}`}</Link>
                  {" · "}
                  {when(w.alertTime)}
                  {" · "}
                  {plural(attempts, { one: "# attempt", other: "# attempts" })}
                  {attempts > 0 && !noJira ? ` · ${t`next attempt ${next}`}` : ""}
                </span>
                <span class="waiting-reason" data-testid="waiting-reason">
                  {t`Jira's answer:`} {why(w)}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
