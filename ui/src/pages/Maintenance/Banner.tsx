// The dashboard's maintenance banner: while a window is active, what it covers and
// until when; and the next window starting within 24 hours. Nothing when there is neither, or
// when the API has no windows (a vendor's).
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { useMaintenanceNow } from "../../api/queries/maintenance";
import type { MaintenanceWindow } from "../../api/types";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { useWindowReason } from "./parts";
import { covers, onePerTarget, windowPath } from "./rules";
import "./Maintenance.css";

export function MaintenanceBanner({ enabled = true }: { enabled?: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const now = useMaintenanceNow(enabled);
  const reasonOf = useWindowReason();
  // Each covered thing once (two mutes of one test case read as the one ending last).
  const active = onePerTarget(now.data?.active ?? []);
  const next = now.data?.next?.[0];
  if (!active.length && !next) return null;
  const time = (v: string | null | undefined) => (v ? formatSiteTime(v, zone, i18n.locale).slice(0, 16) : "");
  const line = (w: MaintenanceWindow) => {
    const what = covers(w);
    const reason = reasonOf(w);
    return w.kind === "once" && w.endTime
      ? (() => {
          const until = time(w.endTime);
          return t`Maintenance now: ${what} (${reason}), until ${until}.`;
        })()
      : t`Maintenance now: ${what} (${reason}), weekly window.`;
  };
  return (
    <div class="maintenance-banner" role="status" data-testid="maintenance-banner">
      {active.map((w) => (
        <p key={w.id} data-testid="maintenance-active">
          <Link href={windowPath(w.id)}>{line(w)}</Link>
        </p>
      ))}
      {next
        ? (() => {
            const what = covers(next);
            const reason = reasonOf(next);
            const at = time(next.nextStartTime);
            return (
              <p data-testid="maintenance-next">
                <Link href={windowPath(next.id)}>{t`Next maintenance: ${what} (${reason}) from ${at}.`}</Link>
              </p>
            );
          })()
        : null}
    </div>
  );
}
