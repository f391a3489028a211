import { describe, expect, it } from "vitest";
import { dateOrder, formatDateField, joinDate, parseDateField } from "./dates";

describe("one date format", () => {
  it("is the spec's yyyy/MM/dd in both languages, never the US order", () => {
    expect(dateOrder("en")).toBe("ymd");
    expect(dateOrder("fr")).toBe("ymd");
    expect(formatDateField("2026-11-22", "en")).toBe("2026/11/22");
    expect(formatDateField("2026-11-22", "fr")).toBe("2026/11/22");
    expect(joinDate("2026", "01", "05", "fr")).toBe("2026/01/05");
    expect(formatDateField("not a date", "en")).toBe("");
  });

  it("reads what a person types in that order, real dates only", () => {
    expect(parseDateField("2026/11/22", "en")).toBe("2026-11-22");
    expect(parseDateField(" 2026-1-5 ", "en")).toBe("2026-01-05");
    expect(parseDateField("2026.1.5", "fr")).toBe("2026-01-05");
    expect(parseDateField("11/22/2026", "en")).toBeNull();
    expect(parseDateField("22/11/2026", "fr")).toBeNull();
    expect(parseDateField("2026/02/31", "fr")).toBeNull();
    expect(parseDateField("2026/13/01", "en")).toBeNull();
    expect(parseDateField("", "en")).toBeNull();
    expect(parseDateField("2026/11", "en")).toBeNull();
  });
});
