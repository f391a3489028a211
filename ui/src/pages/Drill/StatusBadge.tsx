// A run or step status as text with its mark and colour (never colour alone): Pass, Warning,
// Failure; a stopped run reads Failure (Stopped).
import { useLingui } from "@lingui/react/macro";
import type { StatusKind } from "./format";
import "./Drill.css";

const MARKS: Record<StatusKind, string> = { pass: "✓", warning: "▲", failure: "✖" };

export function StatusBadge({ kind, stopped, testId }: { kind: StatusKind; stopped?: boolean; testId?: string }) {
  const { t } = useLingui();
  const text = kind === "pass" ? t`Pass` : kind === "warning" ? t`Warning` : t`Failure`;
  return (
    <span class={`status-badge status-${kind}`} data-testid={testId ?? "status"} data-status={kind}>
      <span aria-hidden="true">{MARKS[kind]}</span> {text}
      {stopped ? ` (${t`Stopped`})` : null}
    </span>
  );
}
