// The runs behind an hourly chart, as links (the keyboard's and the phone's way to what a click
// on a bar segment opens): each hour with runs, and its pass, warning and failure counts, each
// count leading to those runs.
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { type DrillStatus, groupDrillPath } from "./links";
import "./Drill.css";

export interface HourCounts {
  success: number;
  warning: number;
  failure: number;
}

const KINDS: { key: keyof HourCounts; status: DrillStatus; mark: string }[] = [
  { key: "success", status: "success", mark: "✓" },
  { key: "warning", status: "warning", mark: "▲" },
  { key: "failure", status: "failure", mark: "✖" },
];

export function HourRunLinks({
  groupId,
  date,
  runType,
  hours,
  statuses,
}: {
  groupId: number;
  date: string;
  runType: "Manual" | "Schedule";
  hours: HourCounts[];
  /** The statuses shown (the dashboard's rate filter). */
  statuses: DrillStatus[];
}) {
  const { t, i18n } = useLingui();
  const names: Record<string, string> = { success: t`Pass`, warning: t`Warning`, failure: t`Failure` };
  const kinds = KINDS.filter((k) => statuses.includes(k.status));
  const rows = hours
    .map((h, hour) => ({ h, hour }))
    .filter(({ h }) => kinds.some((k) => h[k.key] > 0))
    .reverse();
  if (!rows.length) return null;
  return (
    <details class="hour-runs" data-testid="hour-runs">
      <summary>{t`Test runs by hour`}</summary>
      <table class="hour-runs-table">
        <thead>
          <tr>
            <th scope="col">{t`Time Slot`}</th>
            {kinds.map((k) => (
              <th scope="col" key={k.key}>
                <span aria-hidden="true">{k.mark}</span> {names[k.key]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ h, hour }) => {
            const slot = `${String(hour).padStart(2, "0")}:00`;
            return (
              <tr key={hour}>
                <th scope="row">{slot}</th>
                {kinds.map((k) => {
                  const n = h[k.key];
                  const name = names[k.key];
                  const count = i18n.number(n);
                  return (
                    <td key={k.key}>
                      {n > 0 ? (
                        <Link
                          href={groupDrillPath({ groupId, status: k.status, date, hour, runType })}
                          aria-label={t`${count} ${name} runs at ${slot}`}
                          data-testid={`hour-link-${k.status}`}
                        >
                          {count}
                        </Link>
                      ) : (
                        <span class="muted">0</span>
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </details>
  );
}
