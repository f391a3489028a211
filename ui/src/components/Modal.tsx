// A dialog over the page, on the native <dialog> opened with showModal(): the rest of the page
// is inert while it is open (the focus stays inside), Escape or the close button closes it,
// and the focus goes back where it was.
import { useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "react";
import { CloseIcon } from "./icons";
import "./kit.css";

export interface ModalProps {
  open: boolean;
  title?: ComponentChildren;
  /** Without it the dialog has no close button and ignores Escape. */
  onClose?: () => void;
  size?: "small" | "medium" | "large";
  /** 'alertdialog' for messages that need attention (a failed sign-in). */
  role?: "dialog" | "alertdialog";
  children: ComponentChildren;
  /** Accessible name when there is no visible title. */
  label?: string;
  testId?: string;
}

export function Modal(props: ModalProps) {
  return props.open ? <OpenModal {...props} /> : null;
}

function OpenModal({ title, onClose, size = "medium", role, children, label, testId }: ModalProps) {
  const { t } = useLingui();
  const titleId = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    const before = document.activeElement as HTMLElement | null;
    if (!el.open) el.showModal();
    // Escape: the browser's 'cancel'. Without onClose the dialog stays.
    const onCancel = (e: Event) => {
      e.preventDefault();
      close.current?.();
    };
    el.addEventListener("cancel", onCancel);
    return () => {
      el.removeEventListener("cancel", onCancel);
      if (el.open) el.close();
      before?.focus?.();
    };
  }, []);

  // Tab and Shift+Tab go round inside the dialog, rather than out to the browser's own controls.
  const onKeyDown = (e: KeyboardEvent) => {
    const el = dialog.current;
    if (e.key !== "Tab" || !el) return;
    // `summary`: a <details> inside a dialog (the chart modal's runs by hour) takes the focus
    // too; what a closed <details> holds is not shown but keeps an offsetParent in Chromium.
    const focusable = [
      ...el.querySelectorAll<HTMLElement>(
        'a[href], summary, button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])',
      ),
    ].filter(
      (f) =>
        (f.offsetParent !== null && !f.closest("details:not([open]) > :not(summary)")) || f === document.activeElement,
    );
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const at = document.activeElement;
    if (e.shiftKey && (at === first || !el.contains(at))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (at === last || !el.contains(at))) {
      e.preventDefault();
      first.focus();
    }
  };

  // A press on the backdrop (outside the dialog's box) closes it.
  const onPointerDown = (e: PointerEvent) => {
    const el = dialog.current;
    if (!el || e.target !== el || !close.current) return;
    const r = el.getBoundingClientRect();
    const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
    if (!inside) close.current();
  };

  return (
    <dialog
      ref={dialog}
      class={`modal modal-${size}`}
      role={role === "alertdialog" ? "alertdialog" : undefined}
      aria-labelledby={title ? titleId : undefined}
      aria-label={title ? undefined : label}
      data-testid={testId}
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
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
    </dialog>
  );
}
