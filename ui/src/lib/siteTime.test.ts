import { describe, expect, it } from "vitest";
import { formatClock, formatSiteTime, isIsoDate, lastTime, siteToday, toDate, zoneLabel } from "./siteTime";

const TO = "America/Toronto";

describe("formatSiteTime", () => {
  it("shows UTC times in Toronto, 24-hour, yyyy/MM/dd HH:mm:ss", () => {
    // EDT (UTC-4) in summer
    expect(formatSiteTime("2024-07-01T18:05:09Z", TO)).toBe("2024/07/01 14:05:09");
    expect(formatSiteTime("2024-07-01T18:05:09Z", TO, "fr")).toBe("2024/07/01 14:05:09");
    // EST (UTC-5) in winter, crossing midnight back a day
    expect(formatSiteTime("2024-01-02T03:00:00Z", TO)).toBe("2024/01/01 22:00:00");
    // midnight is 00, not 24
    expect(formatSiteTime("2024-01-02T05:00:00Z", TO)).toBe("2024/01/02 00:00:00");
  });
  it("takes a time without zone as UTC, and epoch seconds or milliseconds", () => {
    expect(formatSiteTime("2024-07-01 18:05:09", TO)).toBe("2024/07/01 14:05:09");
    expect(formatSiteTime(Date.UTC(2024, 6, 1, 18, 5, 9), TO)).toBe("2024/07/01 14:05:09");
    expect(formatSiteTime(Date.UTC(2024, 6, 1, 18, 5, 9) / 1000, TO)).toBe("2024/07/01 14:05:09");
  });
  it("is empty for missing or garbage input", () => {
    expect(formatSiteTime(null, TO)).toBe("");
    expect(formatSiteTime("", TO)).toBe("");
    expect(formatSiteTime("not a date", TO)).toBe("");
    expect(toDate("2024-13-45T00:00:00Z")).toBeNull();
  });
});

describe("formatSiteTime across daylight saving", () => {
  it("skips the hour that does not exist and crosses the year back", () => {
    expect(formatSiteTime("2026-03-08T06:59:59Z", TO)).toBe("2026/03/08 01:59:59");
    expect(formatSiteTime("2026-03-08T07:00:00Z", TO)).toBe("2026/03/08 03:00:00");
    expect(formatSiteTime("2027-01-01T03:00:00Z", TO)).toBe("2026/12/31 22:00:00");
    expect(formatSiteTime("nope", TO)).toBe("");
  });
});

describe("siteToday", () => {
  it("is the Toronto calendar day, not the UTC one", () => {
    expect(siteToday(new Date("2024-03-10T03:30:00Z"), TO)).toBe("2024-03-09");
    expect(siteToday(new Date("2024-03-10T05:30:00Z"), TO)).toBe("2024-03-10");
  });
});

describe("another site time zone", () => {
  it("today is the calendar day at the site, wherever the browser is", () => {
    // 23:30 UTC on 31 December: already New Year's Day in Paris, still New Year's Eve in Toronto.
    const now = new Date("2024-12-31T23:30:00Z");
    expect(siteToday(now, "Europe/Paris")).toBe("2025-01-01");
    expect(siteToday(now, TO)).toBe("2024-12-31");
    // 11:30 UTC is 00:30 the next day in Auckland (NZDT, UTC+13); 07:30 UTC is 23:30 the day
    // before in Los Angeles (PST, UTC-8).
    expect(siteToday(new Date("2024-01-15T11:30:00Z"), "Pacific/Auckland")).toBe("2024-01-16");
    expect(siteToday(new Date("2024-01-15T07:30:00Z"), "America/Los_Angeles")).toBe("2024-01-14");
  });
  it("shows run times and the clock in the site zone, across its own DST change", () => {
    // Paris: CET (UTC+1) in winter, CEST (UTC+2) after 31 March 2024 01:00 UTC.
    expect(formatSiteTime("2024-03-31T00:30:00Z", "Europe/Paris")).toBe("2024/03/31 01:30:00");
    expect(formatSiteTime("2024-03-31T01:30:00Z", "Europe/Paris")).toBe("2024/03/31 03:30:00");
    expect(formatSiteTime("2024-07-01 18:05:09", "Asia/Kolkata")).toBe("2024/07/01 23:35:09");
    expect(formatClock(new Date("2024-07-01T18:32:05Z"), "Europe/Paris")).toBe("20:32:05");
  });
});

describe("formatClock", () => {
  it("HH:mm:ss at the site", () => {
    expect(formatClock(new Date("2024-07-01T18:32:05Z"), TO)).toBe("14:32:05");
  });
});

describe("isIsoDate", () => {
  it("accepts real dates only", () => {
    expect(isIsoDate("2024-02-29")).toBe(true);
    expect(isIsoDate("2023-02-29")).toBe(false);
    expect(isIsoDate("2024-2-1")).toBe(false);
    expect(isIsoDate("")).toBe(false);
  });
});

describe("zoneLabel", () => {
  it("names the site's zone as it is at that date, in the interface language", () => {
    expect(zoneLabel(new Date("2024-01-15T12:00:00Z"), TO, "en")).toBe("EST");
    expect(zoneLabel(new Date("2024-07-15T12:00:00Z"), TO, "en")).toBe("EDT");
    expect(zoneLabel(new Date("2024-01-15T12:00:00Z"), "Europe/Paris", "en")).toBe("GMT+1");
    expect(zoneLabel(new Date("2024-07-15T12:00:00Z"), "Europe/Paris", "en")).toBe("GMT+2");
    expect(zoneLabel(new Date("2024-01-15T12:00:00Z"), TO, "fr")).toBe("EST");
    expect(zoneLabel(new Date("2024-07-15T12:00:00Z"), TO, "fr")).toBe("EDT");
    expect(zoneLabel(new Date("2024-01-15T12:00:00Z"), "Europe/Paris", "fr")).toMatch(/^UTC.1$/);
    expect(zoneLabel(new Date(), "Not/AZone", "en")).toBe("");
  });
});

describe("lastTime", () => {
  it("says never for null, nothing for an absent field, else the site time", () => {
    expect(lastTime(null, "America/Toronto", "en", "Never")).toBe("Never");
    expect(lastTime(undefined, "America/Toronto", "en", "Never")).toBe("");
    expect(lastTime("2026-07-15T14:05:00Z", "America/Toronto", "en", "Never")).toBe("2026/07/15 10:05:00");
  });
});
