import { describe, expect, it } from "vitest";
import { reasonOf, refusalOf } from "./refusal";

describe("why an item could not be loaded", () => {
  it("tells a missing item from one outside the caller's groups and from a failure", () => {
    expect(refusalOf({ status: 404, messages: ["Report 9 does not exist."] })).toBe("missing");
    expect(refusalOf({ status: 403, messages: ["Report 9 is not in your test case groups."] })).toBe("hidden");
    expect(refusalOf({ status: 500, messages: [] })).toBe("failed");
    expect(refusalOf({ status: 0 })).toBe("failed");
    expect(refusalOf(new Error("boom"))).toBe("failed");
    expect(refusalOf(undefined)).toBe("failed");
  });

  it("gives the failure's first message that says something", () => {
    expect(reasonOf({ messages: ["", "Le rapport 9 n'existe pas."] })).toBe("Le rapport 9 n'existe pas.");
    expect(reasonOf({ messages: [] })).toBeUndefined();
    expect(reasonOf(null)).toBeUndefined();
  });
});
