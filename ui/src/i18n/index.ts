// Lingui set-up: English (source, default) and French; the choice is kept in local storage.
import { i18n, type Messages } from "@lingui/core";
import { KEYS, readString, writeString } from "../lib/storage";

export const LOCALES = ["en", "fr"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** Language names are shown in their own language, so they are not translated. */
export const LOCALE_NAMES: Record<Locale, string> = { en: "English", fr: "Français" };

export function isLocale(v: unknown): v is Locale {
  return typeof v === "string" && (LOCALES as readonly string[]).includes(v);
}

export function storedLocale(): Locale {
  const v = readString(KEYS.locale);
  return isLocale(v) ? v : DEFAULT_LOCALE;
}

const catalogs: Record<Locale, () => Promise<{ messages: Messages }>> = {
  en: () => import("../locales/en/messages.po"),
  fr: () => import("../locales/fr/messages.po"),
};

export async function activate(locale: Locale): Promise<void> {
  const { messages } = await catalogs[locale]();
  i18n.loadAndActivate({ locale, messages });
  if (typeof document !== "undefined") document.documentElement.lang = locale;
}

/** Switches the language and remembers the choice. */
export async function setLocale(locale: Locale): Promise<void> {
  writeString(KEYS.locale, locale);
  await activate(locale);
}

export { i18n };
