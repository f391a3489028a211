// English / French selector; the choice is remembered in local storage.
import { useLingui } from "@lingui/react/macro";
import { isLocale, LOCALE_NAMES, LOCALES, setLocale } from "../i18n";
import { GlobeIcon } from "./icons";

export function LanguageSelect({ compact = false }: { compact?: boolean }) {
  const { t, i18n } = useLingui();
  return (
    <label class={compact ? "language-select compact" : "language-select"}>
      <GlobeIcon size={18} />
      <span class="visually-hidden">{t`Language`}</span>
      <select
        value={i18n.locale}
        data-testid="language-select"
        onChange={(e) => {
          const v = (e.currentTarget as HTMLSelectElement).value;
          if (isLocale(v)) void setLocale(v);
        }}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {compact ? l.toUpperCase() : LOCALE_NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
