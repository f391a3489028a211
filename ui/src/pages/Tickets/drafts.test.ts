import { describe, expect, it } from "vitest";
import { draftKey, forgetDraft, loadDraft, parseDraft, saveDraft, type TicketDraft } from "./drafts";

function memory() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

const draft: TicketDraft = {
  project: "OPS",
  summary: "Claims line down",
  assignee: "acc-1",
  labels: ["ivr", "p1"],
  description: "See @Ann Lee",
  mentions: [{ id: "acc-2", name: "Ann Lee" }],
};

describe("ticket drafts", () => {
  it("keys a draft by what is ticketed", () => {
    expect(draftKey({ reportId: 4 })).toBe("report:4");
    expect(draftKey({ alertId: 9 })).toBe("alert:9");
    expect(draftKey({ alertId: 9, ticket: "OPS-3" })).toBe("ticket:OPS-3");
    expect(draftKey({ autoTicketId: 2, ticket: "OPS-3" })).toBe("auto:2");
  });

  it("keeps a refused save's draft until it is forgotten", () => {
    const s = memory();
    expect(loadDraft("report:4", s)).toBeNull();
    saveDraft("report:4", draft, s);
    expect(loadDraft("report:4", s)).toEqual(draft);
    expect(loadDraft("report:5", s)).toBeNull();
    forgetDraft("report:4", s);
    expect(loadDraft("report:4", s)).toBeNull();
  });

  it("reads back only what has a draft's shape", () => {
    expect(parseDraft("not json")).toBeNull();
    expect(parseDraft(JSON.stringify({ summary: "x" }))).toBeNull();
    expect(parseDraft(JSON.stringify({ ...draft, labels: [1] }))).toBeNull();
    expect(parseDraft(JSON.stringify({ ...draft, status: "Done" }))).toEqual({ ...draft, status: "Done" });
  });
});
