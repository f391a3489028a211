// A drop-down list of check boxes, optionally with a Select All entry. The button shows a
// summary given by the caller (e.g. '3 of 12 selected').
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "react";
import { selectAllState, toggleAll, toggleValue } from "./selection";
import "./MultiSelect.css";

export interface MultiSelectOption<V> {
  value: V;
  label: string;
  icon?: ComponentChildren;
}

export interface MultiSelectProps<V> {
  label: string;
  options: MultiSelectOption<V>[];
  selected: V[];
  onChange: (next: V[]) => void;
  summary: string;
  /** When given, a first entry that selects or clears every option. */
  selectAllLabel?: string;
  testId?: string;
  class?: string;
  /** Shows the selection without letting it change (a read-only form). */
  disabled?: boolean;
  /** Told when the list opens and closes. */
  onOpenChange?: (open: boolean) => void;
}

export function MultiSelect<V extends string | number>(props: MultiSelectProps<V>) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const uid = useId();
  const values = props.options.map((o) => o.value);
  const chosen = new Set(props.selected);
  const all = selectAllState(values, props.selected);
  const { onOpenChange } = props;

  useEffect(() => onOpenChange?.(open), [open, onOpenChange]);

  useEffect(() => {
    if (!open) return;
    // The open list comes fully into view, above a phone's footer menu (its scroll-margin).
    root.current?.querySelector(".ms-panel")?.scrollIntoView?.({ block: "nearest" });
    // The listeners go when the effect is cleaned up, which Preact does after the next paint:
    // until then, a list already closed must not take the next Escape (the dialog's own).
    let listening = true;
    const onDown = (e: Event) => {
      if (listening && root.current && !root.current.contains(e.target as Node)) {
        listening = false;
        setOpen(false);
      }
    };
    const onKey = (e: KeyboardEvent) => {
      if (listening && e.key === "Escape") {
        // Escape closes the list only: not the dialog the list is in (a <dialog> closes on an
        // Escape whose default is not prevented), which would lose the dialog's choices.
        listening = false;
        e.preventDefault();
        setOpen(false);
        button.current?.focus();
      }
    };
    document.addEventListener("pointerdown", onDown, true);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onDown, true);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  return (
    <div class={props.class ? `ms ${props.class}` : "ms"} ref={root} data-testid={props.testId}>
      <span class="ms-label" id={`${uid}-label`}>
        {props.label}
      </span>
      <button
        ref={button}
        type="button"
        class="ms-button"
        aria-haspopup="true"
        aria-expanded={open}
        aria-labelledby={`${uid}-label ${uid}-summary`}
        disabled={props.disabled}
        onClick={() => setOpen(!open)}
      >
        <span class="ms-summary" id={`${uid}-summary`}>
          {props.summary}
        </span>
        <svg class="ms-caret" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">
          <path d="M2.5 4.5 6 8l3.5-3.5" fill="none" stroke="currentColor" stroke-width="1.6" />
        </svg>
      </button>
      {open ? (
        <fieldset class="ms-panel" aria-labelledby={`${uid}-label`}>
          {props.selectAllLabel ? (
            <label class="ms-option ms-all">
              <input
                type="checkbox"
                checked={all === "all"}
                indeterminate={all === "some"}
                onChange={() => props.onChange(toggleAll(values, props.selected))}
              />
              <span class="ms-text">{props.selectAllLabel}</span>
            </label>
          ) : null}
          <div class="ms-list">
            {props.options.map((o) => (
              <label class="ms-option" key={String(o.value)} title={o.label}>
                <input
                  type="checkbox"
                  checked={chosen.has(o.value)}
                  onChange={() => props.onChange(toggleValue(values, props.selected, o.value))}
                />
                {o.icon ? <span class="ms-icon">{o.icon}</span> : null}
                <span class="ms-text">{o.label}</span>
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
    </div>
  );
}
