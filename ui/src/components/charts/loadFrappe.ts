// frappe-charts is the largest library the dashboard uses, and its numbers need none of it:
// the chart classes load once, when the first chart is drawn, so the first screen does not
// wait for them.
type Frappe = typeof import("./frappe");

let loading: Promise<Frappe> | null = null;

export function loadFrappe(): Promise<Frappe> {
  loading ??= import("./frappe");
  return loading;
}
