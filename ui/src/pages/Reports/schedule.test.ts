import { describe, expect, it } from "vitest";
import { emptySchedule, fromSchedule, toScheduleSave, validateSchedule } from "./schedule";

describe("report schedule form", () => {
  it("checks the time, the day of its frequency and the list", () => {
    const v = emptySchedule("fr");
    expect(validateSchedule(v)).toEqual({ distributionID: "required" });
    expect(validateSchedule({ ...v, time: "24:00", distributionId: 3 })).toEqual({ time: "invalid" });
    expect(validateSchedule({ ...v, frequency: "monthly", dayOfMonth: 32, distributionId: 3 })).toEqual({
      dayOfMonth: "invalid",
    });
    expect(validateSchedule({ ...v, frequency: "daily", dayOfWeek: 9, distributionId: 3 })).toEqual({});
  });

  it("sends only the day its frequency uses", () => {
    const v = { ...emptySchedule("en"), distributionId: 4, frequency: "monthly" as const, dayOfMonth: 31 };
    expect(toScheduleSave(v)).toEqual({
      frequency: "monthly",
      time: "08:00",
      dayOfWeek: undefined,
      dayOfMonth: 31,
      distributionID: 4,
      language: "en",
      active: true,
    });
    expect(
      fromSchedule({
        frequency: "weekly",
        time: "07:30",
        dayOfWeek: 5,
        dayOfMonth: 1,
        distributionID: 2,
        distributionName: "Ops",
        language: "fr",
        active: false,
        nextDelivery: null,
        lastDelivery: null,
        lastOutcome: null,
      }),
    ).toEqual({
      frequency: "weekly",
      time: "07:30",
      dayOfWeek: 5,
      dayOfMonth: 1,
      distributionId: 2,
      language: "fr",
      active: false,
    });
  });
});
