import { describe, expect, it } from "vitest";
import { hourLabels, hourOf, padHours, timeSlotLabel } from "./hourly";

const TO = "America/Toronto";

describe("hourLabels", () => {
  it("is 00 to 23", () => {
    const l = hourLabels();
    expect(l).toHaveLength(24);
    expect(l[0]).toBe("00");
    expect(l[9]).toBe("09");
    expect(l[23]).toBe("23");
  });
});

describe("timeSlotLabel", () => {
  it("reads start - end of the hour", () => {
    expect(timeSlotLabel(14)).toBe("14:00 - 15:00");
    expect(timeSlotLabel(0)).toBe("00:00 - 01:00");
    expect(timeSlotLabel(9)).toBe("09:00 - 10:00");
    expect(timeSlotLabel(23)).toBe("23:00 - 00:00");
  });
});

describe("hourOf", () => {
  it("reads hour indexes, local times as written, zoned times in Toronto", () => {
    expect(hourOf(0, TO)).toBe(0);
    expect(hourOf(23, TO)).toBe(23);
    expect(hourOf("7", TO)).toBe(7);
    expect(hourOf("2024-07-01 14:00:00", TO)).toBe(14);
    expect(hourOf("2024-07-01T14:00", TO)).toBe(14);
    expect(hourOf("2024-07-01T18:00:00Z", TO)).toBe(14);
    expect(hourOf("2024-07-01T14:00:00-04:00", TO)).toBe(14);
    expect(hourOf(Date.UTC(2024, 0, 1, 15), TO)).toBe(10);
  });
  it("reads zoned times in the site zone it is given, not in Toronto", () => {
    // 18:00 UTC is 20:00 in Paris (CEST) and 23:30 in Kolkata; 15:00 UTC in January 16:00 in Paris.
    expect(hourOf("2024-07-01T18:00:00Z", "Europe/Paris")).toBe(20);
    expect(hourOf("2024-07-01T18:00:00Z", "Asia/Kolkata")).toBe(23);
    expect(hourOf(Date.UTC(2024, 0, 1, 15), "Europe/Paris")).toBe(16);
    // Local times without a zone are already site time, whatever the zone.
    expect(hourOf("2024-07-01 14:00:00", "Europe/Paris")).toBe(14);
    const s = padHours(
      [{ hourly: "2024-07-01T22:00:00Z", successCount: 1, warningCount: 0, failureCount: 0 }],
      "Australia/Sydney",
    );
    expect(s[8].success).toBe(1); // 08:00 the next morning in Sydney (AEST, UTC+10)
  });
  it("is null for garbage", () => {
    expect(hourOf("24", TO)).toBeNull();
    expect(hourOf("soon", TO)).toBeNull();
    expect(hourOf(null, TO)).toBeNull();
    expect(hourOf(-1, TO)).toBeNull();
    expect(hourOf(Number.NaN, TO)).toBeNull();
  });
});

describe("padHours", () => {
  it("always gives 24 slots, zero where the API gave nothing", () => {
    const s = padHours([{ hourly: "2024-07-01 03:00:00", successCount: 2, warningCount: 1, failureCount: 0 }], TO);
    expect(s).toHaveLength(24);
    expect(s[3]).toEqual({ success: 2, warning: 1, failure: 0 });
    expect(s.filter((_, i) => i !== 3).every((x) => x.success + x.warning + x.failure === 0)).toBe(true);
    expect(padHours(null, TO)).toHaveLength(24);
    expect(padHours([], TO)).toHaveLength(24);
  });
  it("adds entries of the same hour and drops unreadable ones and bad counts", () => {
    const s = padHours(
      [
        { hourly: "5", successCount: 1, warningCount: 0, failureCount: 1 },
        { hourly: "2024-07-01 05:00:00", successCount: 3, warningCount: Number.NaN, failureCount: -4 },
        { hourly: "garbage", successCount: 100, warningCount: 0, failureCount: 0 },
      ],
      TO,
    );
    expect(s[5]).toEqual({ success: 4, warning: 0, failure: 1 });
    expect(s.reduce((a, x) => a + x.success, 0)).toBe(4);
  });
});
