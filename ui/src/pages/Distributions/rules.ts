// The distribution list form's rules (spec §5 'Distribution list'), pure: what is checked, in
// which order, which input a row gets, when a row may be deleted, and what is sent.
import type { ContactSave, Distribution, DistributionSave } from "../../api/types";

export const EMAIL = 1 as const;
export const SMS = 2 as const;
export const VOICE = 4 as const;
/** cxwatch's chat and webhook channels (not in the vendor's spec: offered on cxwatch's API only). */
export const WEBHOOK = 8 as const;
export const TEAMS = 16 as const;
export const SLACK = 32 as const;
export const MATTERMOST = 64 as const;
export type ContactTypeId =
  | typeof EMAIL
  | typeof SMS
  | typeof VOICE
  | typeof WEBHOOK
  | typeof TEAMS
  | typeof SLACK
  | typeof MATTERMOST;
/** The spec's contact types (section 9). */
export const SPEC_CONTACT_TYPES: ContactTypeId[] = [EMAIL, SMS, VOICE];
export const WEBHOOK_TYPES: ContactTypeId[] = [WEBHOOK, TEAMS, SLACK, MATTERMOST];
export const CONTACT_TYPES: ContactTypeId[] = [...SPEC_CONTACT_TYPES, ...WEBHOOK_TYPES];
/** Each type's name as the server gives it (the list's `type` column). */
export const TYPE_NAMES: Record<number, string> = {
  [EMAIL]: "Email",
  [SMS]: "SMS",
  [VOICE]: "Voice",
  [WEBHOOK]: "Webhook",
  [TEAMS]: "Microsoft Teams",
  [SLACK]: "Slack",
  [MATTERMOST]: "Mattermost",
};

/** Longest webhook address the server takes. */
export const URL_MAX = 2000;

/** The types a form offers: the spec's, and the webhooks when the API is cxwatch's own. */
export const offeredTypes = (cxwatch: boolean): ContactTypeId[] => (cxwatch ? CONTACT_TYPES : SPEC_CONTACT_TYPES);

export const isWebhook = (type: ContactRow["type"]): boolean => (WEBHOOK_TYPES as number[]).includes(type);

/** A webhook's address as the server checks it: http(s)://host…, no spaces, no user in it. */
export function isWebhookUrl(s: string): boolean {
  const v = s.trim();
  const m = /^https?:\/\/([^/?#]*)/.exec(v);
  return Boolean(m?.[1]) && !m?.[1].includes("@") && !/\s/.test(v) && v.length <= URL_MAX;
}
export const LABEL_MAX = 100;

export type Rule = "required" | "invalid" | "tooLong" | "taken";

export interface ContactRow {
  name: string;
  /** 0 until chosen. */
  type: ContactTypeId | 0;
  info: string;
}

export interface DistributionFormValues {
  name: string;
  contacts: ContactRow[];
}

/** Errors by the server's field names: `name`, `contacts`, `contacts[0].info`, … */
export type Errors = Record<string, Rule | undefined>;

export const emptyRow = (): ContactRow => ({ name: "", type: EMAIL, info: "" });
export const emptyForm = (): DistributionFormValues => ({ name: "", contacts: [emptyRow()] });

const EMAIL_RE = /^[^\s@]+@[^\s@.][^\s@]*$/;

/** What a person types for a number, as the server keeps it: spaces, dots, dashes, brackets removed. */
export function compactNumber(s: string): string {
  return s.trim().replace(/[\s.\-()\u00a0]/g, "");
}

/** An E.164 number: + then 8 to 15 digits, the first not 0. */
export function isE164(s: string): boolean {
  return /^\+[1-9]\d{7,14}$/.test(compactNumber(s));
}

export function isEmail(s: string): boolean {
  const v = s.trim();
  return EMAIL_RE.test(v) && !v.endsWith(".");
}

/** An email-style input for e-mail, a URL input for webhooks, a phone input otherwise (spec §5). */
export const inputTypeOf = (type: ContactRow["type"]): "email" | "tel" | "url" =>
  type === EMAIL ? "email" : isWebhook(type) ? "url" : "tel";

/** Delete row appears only when more than one row exists. */
export const canDeleteRow = (rows: ContactRow[]): boolean => rows.length > 1;

function text(v: string): Rule | undefined {
  const s = v.trim();
  if (!s) return "required";
  if (s.length > LABEL_MAX) return "tooLong";
  return undefined;
}

/** The rule a row's address or number breaks, if any. */
export function infoRule(row: ContactRow): Rule | undefined {
  if (!row.info.trim()) return "required";
  if (row.type === EMAIL) return isEmail(row.info) ? undefined : "invalid";
  if (isWebhook(row.type)) return isWebhookUrl(row.info) ? undefined : "invalid";
  return isE164(row.info) ? undefined : "invalid";
}

/** The form's checks in the server's order: list label, then each row's label, type, address or number. */
export function validateDistribution(v: DistributionFormValues): Errors {
  const e: Errors = {};
  const name = text(v.name);
  if (name) e.name = name;
  if (!v.contacts.length) e.contacts = "required";
  v.contacts.forEach((row, i) => {
    const label = text(row.name);
    if (label) e[`contacts[${i}].name`] = label;
    if (!row.type) e[`contacts[${i}].type`] = "required";
    const info = row.type ? infoRule(row) : row.info.trim() ? undefined : "required";
    if (info) e[`contacts[${i}].info`] = info;
  });
  return e;
}

export function toSave(v: DistributionFormValues): DistributionSave {
  return {
    name: v.name.trim(),
    contacts: v.contacts.map((c) => ({
      name: c.name.trim(),
      // A row without a type is refused by validate() before a save.
      type: c.type as ContactSave["type"],
      info: c.type === EMAIL || isWebhook(c.type) ? c.info.trim() : compactNumber(c.info),
    })),
  };
}

export function fromDistribution(d: Distribution): DistributionFormValues {
  return {
    name: d.name,
    contacts: d.contacts.map((c) => ({
      name: c.name,
      type: (CONTACT_TYPES as number[]).includes(c.type) ? (c.type as ContactTypeId) : 0,
      info: c.info,
    })),
  };
}

export type ConfirmQuery = Partial<
  Record<"email" | "sms" | "voice" | "webhook" | "teams" | "slack" | "mattermost", string>
>;

const WEBHOOK_PARAM: Record<number, "webhook" | "teams" | "slack" | "mattermost"> = {
  [WEBHOOK]: "webhook",
  [TEAMS]: "teams",
  [SLACK]: "slack",
  [MATTERMOST]: "mattermost",
};

/** The testContact query of a row: `email`, `sms`, `voice`, or the webhook's kind. */
export function confirmQuery(row: ContactRow): ConfirmQuery {
  if (row.type === EMAIL) return { email: row.info.trim() };
  if (isWebhook(row.type)) return { [WEBHOOK_PARAM[row.type]]: row.info.trim() };
  if (row.type === VOICE) return { voice: compactNumber(row.info) };
  return { sms: compactNumber(row.info) };
}

/** What uses a list, as `GET distributions/{id}/dependents` answers (cxwatch's addition). */
export interface ListUses {
  alertSettings: { id: number; name: string }[];
  escalations: { id: number; name: string }[];
  reportSchedules: { id: number; name: string }[];
}

/** Whether anything uses the list: the server would refuse to delete it. */
export const inUse = (u: ListUses): boolean =>
  u.alertSettings.length + u.escalations.length + u.reportSchedules.length > 0;
