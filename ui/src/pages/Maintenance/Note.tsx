// 'N runs in maintenance windows are left out of these pass rates': the dashboard's
// and the reports' note, shown only when some were left out (cxwatch's maintenanceCount). MOS
// and latency have no pass rate: there the runs are left out of 'these figures'.
import { plural } from "@lingui/core/macro";
import "./Maintenance.css";

export function MaintenanceNote({ count, of = "rates" }: { count: number; of?: "rates" | "figures" }) {
  if (!(count > 0)) return null;
  const n = count;
  return (
    <p class="maintenance-note" data-testid="maintenance-left-out" data-count={count}>
      {of === "rates"
        ? plural(n, {
            one: "# run in a maintenance window is left out of these pass rates.",
            other: "# runs in maintenance windows are left out of these pass rates.",
          })
        : plural(n, {
            one: "# run in a maintenance window is left out of these figures.",
            other: "# runs in maintenance windows are left out of these figures.",
          })}
    </p>
  );
}
