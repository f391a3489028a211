// 'Select Date': a text field in the one date format (the spec's yyyy/MM/dd, as in the modals
// and the run lists, in both languages) with a calendar button. The browser's own date
// input would show the browser's order (11/22/2026 in a US Chromium, whatever the page's
// language); here it only serves as the calendar the button opens.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useId, useRef, useState } from "react";
import { dateOrder, formatDateField, parseDateField } from "../../lib/dates";

export function DateField({ date, onDate, testId }: { date: string; onDate: (d: string) => void; testId: string }) {
  const { t, i18n } = useLingui();
  const id = useId();
  const shown = formatDateField(date, i18n.locale);
  const [text, setText] = useState(shown);
  const [bad, setBad] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  useEffect(() => {
    setText(shown);
    setBad(false);
  }, [shown]);
  const pattern = dateOrder(i18n.locale) === "dmy" ? t`dd/mm/yyyy` : t`yyyy/mm/dd`;
  const commit = () => {
    const iso = parseDateField(text, i18n.locale);
    if (!iso) {
      setBad(text.trim() !== shown);
      return;
    }
    setBad(false);
    if (iso !== date) onDate(iso);
    else setText(shown);
  };
  return (
    <div class={`control control-date${bad ? " has-error" : ""}`}>
      <label class="control-label" for={id}>
        {t`Select Date`}
      </label>
      <span class="date-field">
        <input
          id={id}
          type="text"
          class="date-input"
          inputMode="numeric"
          autoComplete="off"
          placeholder={pattern}
          value={text}
          required
          aria-invalid={bad ? "true" : undefined}
          aria-describedby={bad ? `${id}-error` : undefined}
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === "Enter") commit();
          }}
          data-testid={`${testId}-text`}
        />
        <button
          type="button"
          class="icon-button date-pick"
          aria-label={t`Choose the date on a calendar`}
          title={t`Choose the date on a calendar`}
          onClick={() => {
            const el = picker.current;
            if (!el) return;
            try {
              el.showPicker();
            } catch {
              el.focus();
            }
          }}
          data-testid={`${testId}-calendar`}
        >
          <svg
            viewBox="0 0 24 24"
            width="18"
            height="18"
            aria-hidden="true"
            fill="none"
            stroke="currentColor"
            stroke-width="2"
          >
            <rect x="3" y="5" width="18" height="16" rx="2" />
            <path d="M3 10h18M8 3v4M16 3v4" />
          </svg>
        </button>
        <input
          ref={picker}
          type="date"
          class="date-native"
          tabIndex={-1}
          aria-hidden="true"
          value={date}
          onChange={(e) => onDate((e.currentTarget as HTMLInputElement).value)}
          data-testid={testId}
        />
      </span>
      {bad ? (
        <span class="field-error" id={`${id}-error`} role="alert">
          {t`Enter the date as ${pattern}.`}
        </span>
      ) : null}
    </div>
  );
}
