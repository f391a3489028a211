import { describe, expect, it } from "vitest";
import { badgeState, maintenanceOf, stripBadges } from "./strip";

const g = (groupId: number, name: string, successCount: number, warningCount: number, failureCount: number) => ({
  groupId,
  name,
  successCount,
  warningCount,
  failureCount,
});

describe("status strip", () => {
  it("a group's state over the window: failure, warning, pass, or none without runs", () => {
    expect(badgeState(g(1, "a", 5, 1, 1))).toBe("failure");
    expect(badgeState(g(1, "a", 5, 1, 0))).toBe("warning");
    expect(badgeState(g(1, "a", 5, 0, 0))).toBe("pass");
    expect(badgeState(g(1, "a", 0, 0, 0))).toBe("none");
  });

  it("only the chosen groups, worst first, then by name", () => {
    const all = [
      g(1, "Billing", 3, 0, 0),
      g(2, "Claims", 1, 0, 2),
      g(3, "Accounts", 0, 0, 0),
      g(4, "Cards", 2, 1, 0),
      g(5, "Auto", 0, 0, 5),
      g(6, "Hidden", 0, 0, 9),
      g(7, "Alpha", 4, 0, 0),
    ];
    const names = stripBadges(all, [1, 2, 3, 4, 5, 7]).map((b) => `${b.name}:${b.state}`);
    expect(names).toEqual([
      "Auto:failure",
      "Claims:failure",
      "Cards:warning",
      "Alpha:pass",
      "Billing:pass",
      "Accounts:none",
    ]);
  });

  it("runs in a maintenance window are grey, never red: maintenance when they are all a group has", () => {
    const maint = (id: number, name: string, pass: number, fail: number, m: number) => ({
      ...g(id, name, pass, 0, fail),
      maintenanceCount: m,
    });
    expect(badgeState(maint(1, "a", 0, 0, 3))).toBe("maintenance");
    // Counted apart by the server: a failure outside the window is still red.
    expect(badgeState(maint(1, "a", 0, 1, 3))).toBe("failure");
    expect(badgeState(maint(1, "a", 2, 0, 3))).toBe("pass");
    // A spec-shaped answer has no maintenanceCount.
    expect(maintenanceOf(g(1, "a", 1, 0, 0))).toBe(0);
    const names = stripBadges(
      [maint(1, "Released", 0, 0, 4), g(2, "Quiet", 0, 0, 0), g(3, "Fine", 1, 0, 0)],
      [1, 2, 3],
    ).map((b) => `${b.name}:${b.state}`);
    expect(names).toEqual(["Fine:pass", "Released:maintenance", "Quiet:none"]);
  });
});
