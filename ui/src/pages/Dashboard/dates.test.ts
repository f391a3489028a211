import { describe, expect, it } from "vitest";
import { dateOrder, formatDateField, joinDate, parseDateField } from "./dates";

describe("one date format per language", () => {
  it("English keeps the spec's yyyy/MM/dd, French writes dd/MM/yyyy", () => {
    expect(dateOrder("en")).toBe("ymd");
    expect(dateOrder("fr")).toBe("dmy");
    expect(dateOrder("fr-CA")).toBe("dmy");
    expect(formatDateField("2026-11-22", "en")).toBe("2026/11/22");
    expect(formatDateField("2026-11-22", "fr")).toBe("22/11/2026");
    expect(joinDate("2026", "01", "05", "fr")).toBe("05/01/2026");
    expect(formatDateField("not a date", "en")).toBe("");
  });

  it("reads what a person types in the language's order, real dates only", () => {
    expect(parseDateField("2026/11/22", "en")).toBe("2026-11-22");
    expect(parseDateField(" 2026-1-5 ", "en")).toBe("2026-01-05");
    expect(parseDateField("22/11/2026", "fr")).toBe("2026-11-22");
    expect(parseDateField("5.1.2026", "fr")).toBe("2026-01-05");
    expect(parseDateField("11/22/2026", "en")).toBeNull();
    expect(parseDateField("2026/11/22", "fr")).toBeNull();
    expect(parseDateField("31/02/2026", "fr")).toBeNull();
    expect(parseDateField("2026/13/01", "en")).toBeNull();
    expect(parseDateField("", "en")).toBeNull();
    expect(parseDateField("2026/11", "en")).toBeNull();
  });
});
