// Translated names of the report types and time frames the server names in English.
import { useLingui } from "@lingui/react/macro";
import { LATENCY, MOS, SEGMENT, TREND } from "./rules";

export function useReportLabels() {
  const { t } = useLingui();
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
  return { typeName, timeframeName, runTypeName };
}
