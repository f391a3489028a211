import { describe, expect, it } from "vitest";
import { formatSiteTime } from "../../lib/siteTime";
import { changeOf, isInstant } from "./audit";

const zone = "America/Toronto";
const time = (v: string | number) => formatSiteTime(v, zone, "fr");

describe("the audit log's change column", () => {
  it("shows instants in site time, not raw milliseconds or seconds", () => {
    const e = {
      before: { ack_ms: null, ack_user: null },
      after: { ack_ms: 1764400320000, ack_user: "ana" },
    };
    // 2025-11-29T07:12:00Z is 02:12 in Toronto.
    expect(changeOf(e, time)).toBe('ack_ms: 2025/11/29 02:12:00, ack_user: "ana"');
    expect(changeOf({ after: { modified_at: 1764400320 } }, time)).toBe("modified_at: 2025/11/29 02:12:00");
    expect(changeOf({ after: { until: "2025-11-29T09:00:00Z" } }, time)).toBe("until: 2025/11/29 04:00:00");
  });
  it("leaves lengths and small numbers as they are", () => {
    expect(isInstant("duration_ms", 1764400320000)).toBe(false);
    expect(isInstant("lease_ms", 1764400320000)).toBe(false);
    expect(isInstant("threshold", 1764400320000)).toBe(false);
    expect(isInstant("end_ms", 0)).toBe(false);
    expect(changeOf({ before: { failures: 4 }, after: { failures: 5 } }, time)).toBe("failures: 5");
  });
  it("says what went away and keeps at most four values", () => {
    expect(changeOf({ before: { name: "IVR" } }, time)).toBe("name: —");
    const after = { a: 1, b: 2, c: 3, d: 4, e: 5 };
    expect(changeOf({ after }, time)).toBe("a: 1, b: 2, c: 3, d: 4");
  });
});
