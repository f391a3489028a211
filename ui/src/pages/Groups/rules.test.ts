import { describe, expect, it } from "vitest";
import type { Ivr } from "../../api/types";
import { caseRows, emptyGroupForm, groupBody, groupProblems, withChannel } from "./rules";

const ivrs: Ivr[] = [
  {
    id: 10,
    name: "Retail IVR",
    channel: "voice",
    testCases: [
      { id: 2, ivrId: 10, name: "Balance" },
      { id: 1, ivrId: 10, name: "Address" },
    ],
  },
  { id: 11, name: "Cards IVR", channel: "voice", testCases: [{ id: 3, ivrId: 11, name: "Lost card" }] },
  { id: 20, name: "Web bot", channel: "web", testCases: [{ id: 9, ivrId: 20, name: "Order status" }] },
] as Ivr[];

describe("group save rules", () => {
  it("needs a name, a channel and a test case; nothing is sent without them", () => {
    const f = emptyGroupForm();
    expect(groupProblems(f)).toEqual({ name: "required", channel: "required", testCases: "required" });
    expect(groupBody(f)).toBeNull();
    expect(groupProblems({ ...f, name: "  ", channel: "voice", testCaseIds: [1] })).toEqual({ name: "required" });
    expect(groupProblems({ ...f, name: "x".repeat(201), channel: "voice", testCaseIds: [1] })).toEqual({
      name: "tooLong",
    });
    expect(groupBody({ ...f, name: "Retail", channel: "voice", testCaseIds: [] })).toBeNull();
  });
  it("sends the trimmed name, channel and test case ids", () => {
    expect(groupBody({ id: 4, name: " Retail ", channel: "voice", ivrId: 10, testCaseIds: [1, 3] })).toEqual({
      id: 4,
      name: "Retail",
      channel: "voice",
      testCases: [{ id: 1 }, { id: 3 }],
    });
    expect(groupBody({ name: "R", channel: "web", ivrId: null, testCaseIds: [9] })).not.toHaveProperty("id");
  });
  it("offers the channel's test cases, narrowed by the IVR application", () => {
    expect(caseRows(ivrs, "voice", null).map((c) => c.id)).toEqual([1, 2, 3]);
    expect(caseRows(ivrs, "voice", 11).map((c) => c.ivrName)).toEqual(["Cards IVR"]);
    expect(caseRows(ivrs, "web", null).map((c) => c.id)).toEqual([9]);
    expect(caseRows(ivrs, "", null)).toEqual([]);
  });
  it("drops test cases of the other channel when the channel changes", () => {
    const f = { name: "R", channel: "voice" as const, ivrId: 10, testCaseIds: [1, 9, 3] };
    expect(withChannel(f, ivrs, "web")).toEqual({ name: "R", channel: "web", ivrId: null, testCaseIds: [9] });
  });
});
