// Status colours (spec §9: pass green, warning orange, failure red), the same as the console's
// --pass, --warning, --failure and --disabled CSS variables (frappe-charts needs real values).
export const PASS_COLOR = "#1e9e5a";
export const WARNING_COLOR = "#e8890c";
export const FAILURE_COLOR = "#d93a3a";
export const DISABLED_COLOR = "#9aa5b4";
export const NEUTRAL_COLOR = "#5d6b7e";
