import { describe, expect, it } from "vitest";
import type { AlertStatus } from "../../api/types";
import { fullWeek, paint } from "../../lib/schedule";
import { emptyForm, neverAlerts, showsAttachRecording, statusesFor, toSave, validateAlertSetting } from "./rules";

const statuses: AlertStatus[] = [
  { id: 3, code: "PASS", text: "Pass", statusGroup: "TRS_PASS", supportChannel: "ivr,voice,web" },
  { id: 4, code: "WARN", text: "Warning", statusGroup: "TRS_WARN", supportChannel: "ivr,voice,web" },
  { id: 7, code: "FAIL", text: "Failure", statusGroup: "TRS_FAIL", supportChannel: "ivr,voice,web" },
  { id: 9, code: "NOANSWER", text: "No answer", statusGroup: "TRS_FAIL", supportChannel: "ivr" },
];

describe("alert setting rules", () => {
  it("an empty form fails in the spec's order", () => {
    expect(Object.entries(validateAlertSetting(emptyForm()))).toEqual([
      ["name", "required"],
      ["testCaseGroupId", "required"],
      ["distributionId", "required"],
      ["failureToAlert", "failures"],
      ["emailSubject", "required"],
      ["voiceMessage", "required"],
      ["smsPrefix", "required"],
      ["alertStatus", "statuses"],
      ["schedule", "hours"],
    ]);
  });

  it("a schedule without a half hour is refused, and a saved one is said never to alert", () => {
    const one = paint(emptyForm().week, { day: 6, slot: 47 }, { day: 6, slot: 47 }, true);
    expect(validateAlertSetting({ ...emptyForm(), week: one }).schedule).toBeUndefined();
    expect(validateAlertSetting({ ...emptyForm(), week: fullWeek() }).schedule).toBeUndefined();
    expect(neverAlerts({ schedule: [] })).toBe(true);
    expect(neverAlerts({ schedule: [{ dayOfWeek: 7, startTimeSlot: "23:30", endTimeSlot: "24:00" }] })).toBe(false);
    // A list row without its schedule (the vendor's list may leave it out): nothing is said.
    expect(neverAlerts({})).toBe(false);
    expect(neverAlerts({ schedule: null })).toBe(false);
  });

  it("a complete form passes; failures must be a choice", () => {
    const v = {
      ...emptyForm(),
      name: "Billing down",
      groupId: 2,
      distributionId: 3,
      failureToAlert: 3,
      emailSubject: "s",
      voiceMessage: "v",
      smsPrefix: "p",
      alertStatus: ["FAIL"],
      week: fullWeek(),
    };
    expect(validateAlertSetting(v)).toEqual({});
    expect(validateAlertSetting({ ...v, failureToAlert: 4 })).toEqual({ failureToAlert: "failures" });
  });

  it("offers the failure and warning statuses of the channel", () => {
    expect(statusesFor(statuses, "voice").map((s) => s.code)).toEqual(["WARN", "FAIL", "NOANSWER"]);
    expect(statusesFor(statuses, undefined).map((s) => s.code)).toEqual(["WARN", "FAIL", "NOANSWER"]);
    expect(statusesFor(statuses, "web").map((s) => s.code)).toEqual(["WARN", "FAIL"]);
    expect(showsAttachRecording(undefined)).toBe(true);
    expect(showsAttachRecording("voice")).toBe(true);
    expect(showsAttachRecording("web")).toBe(false);
  });

  it("sends what the channel allows and the schedule as ranges", () => {
    const v = {
      ...emptyForm(),
      attachRecording: true,
      alertStatus: ["NOANSWER", "FAIL"],
      week: paint(emptyForm().week, { day: 0, slot: 16 }, { day: 0, slot: 17 }, true),
      jiraProject: " OPS ",
    };
    const web = statusesFor(statuses, "web");
    const body = toSave(v, web, "web");
    expect(body.attachRecording).toBe(false);
    expect(body.alertStatus).toEqual(["FAIL"]);
    expect(body.schedule).toEqual([{ dayOfWeek: 1, startTimeSlot: "08:00", endTimeSlot: "09:00" }]);
    expect(body.jiraProject).toBe("OPS");
    expect(body.jiraAssignee).toBeUndefined();
    expect(toSave(v, statusesFor(statuses, "voice"), "voice").attachRecording).toBe(true);
  });

  it("escalates to a second list after 1 minute to a week, sent only to cxwatch's API", () => {
    const v = {
      ...emptyForm(),
      name: "Billing down",
      groupId: 2,
      distributionId: 3,
      failureToAlert: 3,
      emailSubject: "s",
      voiceMessage: "v",
      smsPrefix: "p",
      alertStatus: ["FAIL"],
      week: fullWeek(),
    };
    expect(validateAlertSetting({ ...v, escalationDistributionId: 4, escalationDelayMin: 0 })).toEqual({
      escalationDelayMin: "delay",
    });
    expect(validateAlertSetting({ ...v, escalationDistributionId: 4, escalationDelayMin: 10081 })).toEqual({
      escalationDelayMin: "delay",
    });
    expect(validateAlertSetting({ ...v, escalationDistributionId: 0, escalationDelayMin: 0 })).toEqual({});
    const offered = statusesFor(statuses, "voice");
    const esc = { ...v, escalationDistributionId: 4, escalationDelayMin: 15 };
    expect(toSave(esc, offered, "voice", true)).toMatchObject({ escalationDistributionId: 4, escalationDelayMin: 15 });
    expect(toSave(v, offered, "voice", true)).toMatchObject({
      escalationDistributionId: null,
      escalationDelayMin: null,
    });
    expect("escalationDistributionId" in toSave(esc, offered, "voice")).toBe(false);
  });
});
