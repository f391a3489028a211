import { describe, expect, it } from "vitest";
import { firstFutureHour, headlineScope } from "./scope";

// 2026-11-22 19:40 in Toronto (UTC-5).
const now = new Date("2026-11-23T00:40:00Z");
const tz = "America/Toronto";

describe("headline scope", () => {
  it("today runs from midnight to now at the site", () => {
    expect(headlineScope("2026-11-22", now, tz)).toEqual({
      today: true,
      day: "2026/11/22",
      from: "00:00",
      to: "19:40",
    });
  });
  it("a past day is whole, a day to come is empty", () => {
    expect(headlineScope("2026-11-21", now, tz)).toEqual({
      today: false,
      day: "2026/11/21",
      from: "00:00",
      to: "24:00",
    });
    expect(headlineScope("2026-11-23", now, tz).to).toBe("00:00");
  });
  it("writes the day in the one date format, in French too", () => {
    expect(headlineScope("2026-11-21", now, tz, "fr").day).toBe("2026/11/21");
  });
  it("is read in the site's time zone, not the browser's", () => {
    expect(headlineScope("2026-11-23", now, "Europe/Paris")).toMatchObject({ today: true, to: "01:40" });
  });
});

describe("hours still to come", () => {
  it("today: the hours after the current one", () => {
    expect(firstFutureHour("2026-11-22", now, tz)).toBe(20);
  });
  it("none for a past day, all for a day to come", () => {
    expect(firstFutureHour("2026-11-21", now, tz)).toBe(24);
    expect(firstFutureHour("2026-11-23", now, tz)).toBe(0);
  });
});
