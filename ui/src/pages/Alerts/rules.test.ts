import { describe, expect, it } from "vitest";
import type { RunItem } from "../../api/types";
import {
  asksAcknowledge,
  canAcknowledge,
  eventKind,
  extendedUntil,
  filterRuns,
  notificationCause,
  openingOutcome,
  pageSlice,
  STATUS_CHIPS,
  stateOfParam,
  statusOfParam,
  toggleStatus,
  tracksAcknowledgement,
} from "./rules";

const run = (runId: number, name: string, runStatusId: number): RunItem => ({
  runId,
  testCaseId: 1,
  testCaseName: name,
  runTime: "2026-11-23T15:00:00Z",
  runDuration: 12.5,
  runStatusId,
  runStatus: "",
  runType: "Manual",
  runResult: "fail",
});

describe("alert rules", () => {
  it("reads the status chips from the URL, in the spec's order", () => {
    expect(STATUS_CHIPS).toEqual([7, 3, 4]);
    expect(statusOfParam("7")).toBe(7);
    expect(statusOfParam("4")).toBe(4);
    expect(statusOfParam("5")).toBeUndefined();
    expect(statusOfParam(null)).toBeUndefined();
    expect(statusOfParam("")).toBeUndefined();
  });

  it("toggles a chip", () => {
    expect(toggleStatus(undefined, 7)).toBe(7);
    expect(toggleStatus(7, 7)).toBeUndefined();
    expect(toggleStatus(7, 4)).toBe(4);
  });

  it("takes an event's status from its first run", () => {
    expect(eventKind({ testRuns: [{ runStatusId: 4 }], statusId: 7 })).toBe("warning");
    expect(eventKind({ testRuns: [], statusId: 7 })).toBe("failure");
  });

  it("searches runs by id or test case name and filters by status", () => {
    const runs = [run(101, "Card balance", 7), run(202, "Billing menu", 4), run(303, "card PIN", 3)];
    expect(filterRuns(runs, "card", "").map((r) => r.runId)).toEqual([101, 303]);
    expect(filterRuns(runs, "20", "").map((r) => r.runId)).toEqual([202]);
    expect(filterRuns(runs, "", "failure").map((r) => r.runId)).toEqual([101]);
    expect(filterRuns(runs, "card", "pass").map((r) => r.runId)).toEqual([303]);
    expect(filterRuns(runs, "  ", "").length).toBe(3);
  });

  it("slices a page", () => {
    expect(pageSlice([1, 2, 3, 4, 5], 2, 2)).toEqual([3, 4]);
    expect(pageSlice([1, 2, 3], 3, 2)).toEqual([]);
  });
});

describe("acknowledgement", () => {
  it("is offered for an open event nobody has, when the API keeps them", () => {
    expect(canAcknowledge({ open: true, acknowledgedBy: null })).toBe(true);
    expect(canAcknowledge({ open: true, acknowledgedBy: "ann" })).toBe(false);
    expect(canAcknowledge({ open: false, acknowledgedBy: null })).toBe(false);
    // A vendor's API (section 3) has no acknowledgedBy: nothing is offered.
    expect(canAcknowledge({ open: true })).toBe(false);
    expect(tracksAcknowledgement({ open: true })).toBe(false);
    expect(tracksAcknowledgement({ acknowledgedBy: null })).toBe(true);
  });
  it("reads the mail's link and the notifications' causes", () => {
    expect(asksAcknowledge("?acknowledge=1")).toBe(true);
    expect(asksAcknowledge("?acknowledge=0")).toBe(false);
    expect(asksAcknowledge("")).toBe(false);
    expect(notificationCause("alert:4")).toBe("alert");
    expect(notificationCause("recovery:4")).toBe("recovery");
    expect(notificationCause("escalation:4")).toBe("escalation");
  });
});

describe("openingOutcome", () => {
  const sent = (cause: string, state: string) => ({ kind: "notified", notification: { cause, state } });
  const opened = { kind: "opened", notification: null };
  it("says notified only when every alert send went out", () => {
    expect(openingOutcome([opened, sent("alert:1", "sent"), sent("alert:1", "sent")]).outcome).toBe("sent");
  });
  it("says failed when every send failed", () => {
    const r = openingOutcome([opened, sent("alert:1", "failed"), sent("alert:1", "failed")]);
    expect(r).toEqual({ outcome: "failed", failed: 2, total: 2 });
  });
  it("counts the failures of a partly sent opening", () => {
    expect(openingOutcome([opened, sent("alert:1", "sent"), sent("alert:1", "failed")])).toEqual({
      outcome: "partly",
      failed: 1,
      total: 2,
    });
  });
  it("waits while sends are queued", () => {
    expect(openingOutcome([opened, sent("alert:1", "queued"), sent("alert:1", "sent")]).outcome).toBe("pending");
    expect(openingOutcome([opened, sent("alert:1", "queued"), sent("alert:1", "failed")]).outcome).toBe("pending");
  });
  it("leaves recovery and escalation sends out, and says when nobody was notified", () => {
    expect(openingOutcome([opened, sent("recovery:1", "sent"), sent("escalation:1", "failed")]).outcome).toBe("none");
    expect(openingOutcome([opened, sent("alert:1", "failed"), sent("recovery:1", "sent")]).outcome).toBe("failed");
  });
});

describe("the list's state filter and a mute's extension", () => {
  it("reads only the known filters from the address", () => {
    expect(stateOfParam("open")).toBe("open");
    expect(stateOfParam("unacknowledged")).toBe("unacknowledged");
    expect(stateOfParam("mine")).toBe("mine");
    expect(stateOfParam("closed")).toBeUndefined();
    expect(stateOfParam(null)).toBeUndefined();
  });

  it("extends a mute by an hour from its end, or from now when it ended already", () => {
    const now = new Date("2026-11-29T08:00:00Z");
    expect(extendedUntil("2026-11-29T09:00:00Z", now).toISOString()).toBe("2026-11-29T10:00:00.000Z");
    expect(extendedUntil("2026-11-29T07:00:00Z", now).toISOString()).toBe("2026-11-29T09:00:00.000Z");
    expect(extendedUntil("nonsense", now).toISOString()).toBe("2026-11-29T09:00:00.000Z");
  });
});
