// The fills that tell a status by pattern as well as colour (failure hatched, warning dotted),
// defined once on the page and used by the charts' CSS (charts.css).
import { FAILURE_COLOR, WARNING_COLOR } from "./colors";

export function ChartPatterns() {
  return (
    <svg width="0" height="0" style={{ position: "absolute" }} aria-hidden="true" focusable="false">
      <defs>
        <pattern
          id="cx-pattern-failure"
          width="6"
          height="6"
          patternUnits="userSpaceOnUse"
          patternTransform="rotate(45)"
        >
          <rect width="6" height="6" fill={FAILURE_COLOR} />
          <rect width="2" height="6" fill="#8f1f1f" />
        </pattern>
        <pattern id="cx-pattern-warning" width="5" height="5" patternUnits="userSpaceOnUse">
          <rect width="5" height="5" fill={WARNING_COLOR} />
          <circle cx="2.5" cy="2.5" r="1" fill="#7a4500" />
        </pattern>
      </defs>
    </svg>
  );
}
