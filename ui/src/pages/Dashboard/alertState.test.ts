import { describe, expect, it } from "vitest";
import { alertStateView, alertsByGroup, shortSiteTime } from "./alertState";

const zone = "America/Toronto";
// 03:20 in Toronto (EST, UTC-5).
const now = new Date("2026-11-29T08:20:00Z");

describe("the failing-now bar's alert state", () => {
  it("names an open alert and links to it", () => {
    expect(alertStateView({ state: "open", alertId: 12 }, now, zone, "en")).toEqual({
      kind: "open",
      href: "/alert/12",
    });
  });

  it("says who acknowledged and when, in site time", () => {
    expect(
      alertStateView({ state: "acknowledged", alertId: 12, by: "ana", time: "2026-11-29T08:12:00Z" }, now, zone, "en"),
    ).toEqual({ kind: "acknowledged", href: "/alert/12", by: "ana", at: "03:12" });
  });

  it("says until when a mute lasts, with the date when it ends another day", () => {
    expect(
      alertStateView(
        { state: "muted", alertId: 12, by: "ana", until: "2026-11-29T09:00:00Z", windowId: 3, wholeGroup: true },
        now,
        zone,
        "en",
      ),
    ).toEqual({ kind: "muted", href: "/alert/12", by: "ana", until: "04:00", wholeGroup: true });
    const planned = alertStateView(
      { state: "muted", by: "bob", until: "2026-11-30T13:00:00Z", windowId: 3 },
      now,
      zone,
      "en",
    );
    expect(planned).toEqual({
      kind: "muted",
      href: "/settings/maintenance/3",
      by: "bob",
      until: "2026/11/30 08:00",
      wholeGroup: false,
    });
  });

  it("counts the failures against the setting's threshold", () => {
    expect(alertStateView({ state: "notYet", failures: 4, threshold: 5, alertSettingId: 7 }, now, zone, "fr")).toEqual({
      kind: "notYet",
      href: "/report/setting/7",
      failures: 4,
      threshold: 5,
    });
    expect(alertStateView({ state: "noSetting" }, now, zone, "en")?.kind).toBe("noSetting");
  });

  it("shows nothing without a state (a vendor's API)", () => {
    expect(alertStateView(undefined, now, zone, "en")).toBeNull();
    expect(alertStateView({ state: "open" }, now, zone, "en")).toBeNull();
  });

  it("keeps the alerts of the failing groups by id", () => {
    const m = alertsByGroup([{ groupId: 1, alert: { state: "open", alertId: 2 } }, { groupId: 2 }]);
    expect([...m.keys()]).toEqual([1]);
  });

  it("writes the date the French way", () => {
    expect(shortSiteTime("2026-11-30T13:00:00Z", now, zone, "fr")).toMatch(/^30\/11\/2026 08:00$|^2026\/11\/30 08:00$/);
  });
});
