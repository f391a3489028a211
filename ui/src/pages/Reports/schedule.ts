// The report schedule form's rules (cxwatch's scheduled report mail), pure: the form's values,
// its checks in the server's order, what is sent, and the values of a saved schedule.
import type { ReportSchedule, ScheduleSave } from "../../api/queries/reportSchedules";

export type Frequency = "daily" | "weekly" | "monthly";
export type MailLanguage = "en" | "fr";

export interface ScheduleFormValues {
  frequency: Frequency;
  /** `HH:MM`, the site's local time. */
  time: string;
  /** 1 Monday … 7 Sunday. */
  dayOfWeek: number;
  /** 1 … 31 (the month's last day when shorter). */
  dayOfMonth: number;
  /** 0 until chosen. */
  distributionId: number;
  language: MailLanguage;
  active: boolean;
}

export type ScheduleField = "time" | "dayOfWeek" | "dayOfMonth" | "distributionID";
export type ScheduleRule = "required" | "invalid";
export type ScheduleErrors = Partial<Record<ScheduleField, ScheduleRule>>;

export const emptySchedule = (language: MailLanguage): ScheduleFormValues => ({
  frequency: "weekly",
  time: "08:00",
  dayOfWeek: 1,
  dayOfMonth: 1,
  distributionId: 0,
  language,
  active: true,
});

export function fromSchedule(s: ReportSchedule): ScheduleFormValues {
  return {
    frequency: s.frequency,
    time: s.time,
    dayOfWeek: s.dayOfWeek,
    dayOfMonth: s.dayOfMonth,
    distributionId: s.distributionID,
    language: s.language,
    active: s.active,
  };
}

const TIME_RE = /^([01]\d|2[0-3]):[0-5]\d$/;

export function validateSchedule(v: ScheduleFormValues): ScheduleErrors {
  const e: ScheduleErrors = {};
  if (!v.time) e.time = "required";
  else if (!TIME_RE.test(v.time)) e.time = "invalid";
  if (v.frequency === "weekly" && !(v.dayOfWeek >= 1 && v.dayOfWeek <= 7)) e.dayOfWeek = "invalid";
  if (v.frequency === "monthly" && !(Number.isInteger(v.dayOfMonth) && v.dayOfMonth >= 1 && v.dayOfMonth <= 31))
    e.dayOfMonth = "invalid";
  if (!v.distributionId) e.distributionID = "required";
  return e;
}

export function toScheduleSave(v: ScheduleFormValues): ScheduleSave {
  return {
    frequency: v.frequency,
    time: v.time,
    dayOfWeek: v.frequency === "weekly" ? v.dayOfWeek : undefined,
    dayOfMonth: v.frequency === "monthly" ? v.dayOfMonth : undefined,
    distributionID: v.distributionId,
    language: v.language,
    active: v.active,
  };
}
