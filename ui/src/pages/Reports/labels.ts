// Translated names of the report types and time frames the server names in English.
import { useLingui } from "@lingui/react/macro";
import { LATENCY, MOS, SEGMENT, TREND } from "./rules";

/** A latency bucket's bounds (ms), for its label. */
export interface BucketBounds {
  lowerBound: number;
  uppperBound?: number | null;
}

export function useReportLabels() {
  const { t, i18n } = useLingui();
  const secs = (ms: number) => i18n.number(ms / 1000, { maximumFractionDigits: 2 });
  /** '0.5 - 1 sec', '10 sec and more', in the reader's language. */
  const bucketName = (b: BucketBounds): string => {
    const lo = secs(b.lowerBound);
    if (b.uppperBound === null || b.uppperBound === undefined) return t`${lo} sec and more`;
    const hi = secs(b.uppperBound);
    return t`${lo} - ${hi} sec`;
  };
  const typeName = (id: number): string => {
    switch (id) {
      case TREND:
        return t`Trend`;
      case SEGMENT:
        return t`Segment Performance`;
      case LATENCY:
        return t`Test Script Latency by Hour`;
      case MOS:
        return t`MOS`;
      default:
        return t`Test Case Performance`;
    }
  };
  const timeframes: Record<string, string> = {
    Custom: t`Custom`,
    Today: t`Today`,
    Yesterday: t`Yesterday`,
    "Current Week": t`Current Week`,
    "Last Week": t`Last Week`,
    "Current Month": t`Current Month`,
    "Last Month": t`Last Month`,
    "Last Year": t`Last Year`,
  };
  const timeframeName = (name: string): string => timeframes[name] ?? name;
  const runTypeName = (r: string): string => (r === "Schedule" ? t`Schedule` : t`Manual`);
  return { typeName, timeframeName, runTypeName, bucketName };
}
