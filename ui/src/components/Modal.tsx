// A dialog over the page: Escape or the close button closes it; focus moves in and back.
import { useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "react";
import { CloseIcon } from "./icons";

export interface ModalProps {
  open: boolean;
  title?: ComponentChildren;
  /** Without it the dialog has no close button and ignores Escape. */
  onClose?: () => void;
  size?: "small" | "medium" | "large";
  /** 'alert' for messages that need attention (a failed sign-in). */
  role?: "dialog" | "alertdialog";
  children: ComponentChildren;
  /** Accessible name when there is no visible title. */
  label?: string;
  testId?: string;
}

export function Modal({
  open,
  title,
  onClose,
  size = "medium",
  role = "dialog",
  children,
  label,
  testId,
}: ModalProps) {
  const { t } = useLingui();
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const before = document.activeElement as HTMLElement | null;
    box.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && onClose) onClose();
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      before?.focus?.();
    };
  }, [open]);

  if (!open) return null;
  return (
    <div
      class="modal-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget && onClose) onClose();
      }}
    >
      <div
        ref={box}
        class={`modal modal-${size}`}
        role={role}
        aria-modal="true"
        aria-labelledby={title ? titleId : undefined}
        aria-label={title ? undefined : label}
        tabIndex={-1}
        data-testid={testId}
      >
        {title || onClose ? (
          <div class="modal-header">
            {title ? (
              <h2 id={titleId} class="modal-title">
                {title}
              </h2>
            ) : (
              <span />
            )}
            {onClose ? (
              <button type="button" class="icon-button" onClick={onClose} aria-label={t`Close`}>
                <CloseIcon size={18} />
              </button>
            ) : null}
          </div>
        ) : null}
        <div class="modal-body">{children}</div>
      </div>
    </div>
  );
}
