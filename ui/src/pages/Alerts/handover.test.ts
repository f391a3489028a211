import { describe, expect, it } from "vitest";
import { countsOf, sinceOfParam, sinceTime } from "./handover";

describe("the handover", () => {
  it("starts at the previous sign-in unless the address says otherwise", () => {
    expect(sinceOfParam(null)).toBe("signin");
    expect(sinceOfParam("bogus")).toBe("signin");
    expect(sinceOfParam("12h")).toBe("12h");
  });

  it("asks the server from a minute-rounded start, or lets it use the sign-in", () => {
    const now = new Date("2026-11-29T08:20:31.500Z");
    expect(sinceTime("signin", now)).toBeUndefined();
    expect(sinceTime("8h", now)).toBe("2026-11-29T00:20:00.000Z");
    expect(sinceTime("24h", now)).toBe("2026-11-28T08:20:00.000Z");
  });

  it("counts the night by kind", () => {
    expect(countsOf([{ kind: "opened" }, { kind: "opened" }, { kind: "muted" }, { kind: "closed" }])).toEqual({
      opened: 2,
      acknowledged: 0,
      muted: 1,
      closed: 1,
    });
  });
});
