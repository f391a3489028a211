// A run or step status as text with its mark and colour (never colour alone): Pass, Warning,
// Failure; a stopped run reads Failure (Stopped). A run stored while a maintenance window covered
// it reads Maintenance, in grey, with its status after it: not red.
import { useLingui } from "@lingui/react/macro";
import type { StatusKind } from "./format";
import "./Drill.css";

const MARKS: Record<StatusKind, string> = { pass: "✓", warning: "▲", failure: "✖" };

export function StatusBadge({
  kind,
  stopped,
  testId,
  maintenance,
}: {
  kind: StatusKind;
  stopped?: boolean;
  testId?: string;
  maintenance?: boolean;
}) {
  const { t } = useLingui();
  const text = kind === "pass" ? t`Pass` : kind === "warning" ? t`Warning` : t`Failure`;
  if (maintenance) {
    const status = stopped ? `${text}, ${t`Stopped`}` : text;
    return (
      <span
        class="status-badge status-maintenance"
        data-testid={testId ?? "status"}
        data-status="maintenance"
        data-run-status={kind}
      >
        <span aria-hidden="true">⚙</span> {t`Maintenance (${status})`}
      </span>
    );
  }
  return (
    <span class={`status-badge status-${kind}`} data-testid={testId ?? "status"} data-status={kind}>
      <span aria-hidden="true">{MARKS[kind]}</span> {text}
      {stopped ? ` (${t`Stopped`})` : null}
    </span>
  );
}
