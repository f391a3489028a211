import { describe, expect, it } from "vitest";
import {
  appFailing,
  appsOfChannel,
  type ChannelHealth,
  type ClientAppHealth,
  combineStates,
  componentState,
  failingFirst,
  failureCount,
  flagState,
  journeyFor,
  lastRunTime,
} from "./health";

const on = (status: string) => ({ enabled: true, status });
const off = (status = "TRS_PASS") => ({ enabled: false, status });

function app(p: Partial<ClientAppHealth> = {}): ClientAppHealth {
  return {
    clientEndPoint: "ep",
    channel: "voice",
    lastRun: "2024-05-01T18:00:00Z",
    appStatus: on("TRS_PASS"),
    telcoStatus: on("TRS_PASS"),
    agentStatus: on("TRS_PASS"),
    componentStatus: [],
    ...p,
  };
}

describe("flagState", () => {
  it("TRS_PASS is pass, any other enabled status is failure, not enabled is disabled", () => {
    expect(flagState(on("TRS_PASS"))).toBe("pass");
    expect(flagState(on("TRS_FAIL"))).toBe("fail");
    expect(flagState(on("TRS_WARN"))).toBe("fail");
    expect(flagState(on(""))).toBe("fail");
    expect(flagState(on("trs_pass"))).toBe("fail");
    expect(flagState(off("TRS_FAIL"))).toBe("disabled");
    expect(flagState(null)).toBe("disabled");
    expect(flagState(undefined)).toBe("disabled");
  });
});

describe("combineStates", () => {
  it("red if any enabled fails, green if all enabled pass, grey if none enabled", () => {
    expect(combineStates(["pass", "fail", "disabled"])).toBe("fail");
    expect(combineStates(["pass", "disabled"])).toBe("pass");
    expect(combineStates(["disabled", "disabled"])).toBe("disabled");
    expect(combineStates([])).toBe("disabled");
  });
});

describe("failureCount", () => {
  it("counts failing enabled over enabled", () => {
    expect(failureCount([on("TRS_PASS"), on("TRS_FAIL"), off("TRS_FAIL"), on("X")])).toEqual({
      failing: 2,
      enabled: 3,
    });
    expect(failureCount([])).toEqual({ failing: 0, enabled: 0 });
  });
});

describe("journeyFor", () => {
  it("colours each node from its own status", () => {
    const j = journeyFor([
      app({ telcoStatus: on("TRS_PASS"), appStatus: on("TRS_FAIL"), agentStatus: off() }),
      app({ telcoStatus: off(), appStatus: on("TRS_PASS"), agentStatus: off() }),
    ]);
    expect(j).toEqual({
      caller: "pass",
      network: "pass",
      bot: "fail",
      agent: "disabled",
      botFailures: { failing: 1, enabled: 2 },
    });
  });
  it("all disabled is grey everywhere, caller included", () => {
    const j = journeyFor([app({ telcoStatus: off(), appStatus: off(), agentStatus: off() })]);
    expect([j.caller, j.network, j.bot, j.agent]).toEqual(["disabled", "disabled", "disabled", "disabled"]);
    expect(journeyFor([]).caller).toBe("disabled");
  });
});

describe("appsOfChannel", () => {
  it("picks the apps of one channel", () => {
    const h: ChannelHealth[] = [
      { channel: "voice", clientApps: [app({ clientEndPoint: "a" })] },
      { channel: "web", clientApps: [app({ clientEndPoint: "b", channel: "web" })] },
    ];
    expect(appsOfChannel(h, "web").map((a) => a.clientEndPoint)).toEqual(["b"]);
    expect(appsOfChannel(h, "voice").map((a) => a.clientEndPoint)).toEqual(["a"]);
  });
});

describe("componentState", () => {
  it("present and enabled takes the app colour, otherwise grey", () => {
    const c = { name: "db", hasComponent: true, enabled: true };
    expect(componentState(c, app())).toBe("pass");
    expect(componentState(c, app({ appStatus: on("TRS_FAIL") }))).toBe("fail");
    expect(componentState(c, app({ appStatus: off() }))).toBe("disabled");
    expect(componentState({ ...c, enabled: false }, app())).toBe("disabled");
    expect(componentState({ ...c, hasComponent: false }, app())).toBe("disabled");
  });
  it("a component's own status (cxwatch's) colours it alone: one failed back end, one red icon", () => {
    const failing = app({ appStatus: on("TRS_FAIL") });
    expect(componentState({ name: "Claims DB", hasComponent: true, enabled: true, status: "TRS_FAIL" }, failing)).toBe(
      "fail",
    );
    expect(componentState({ name: "CRM DB", hasComponent: true, enabled: true, status: "TRS_PASS" }, failing)).toBe(
      "pass",
    );
    expect(componentState({ name: "CRM DB", hasComponent: true, enabled: true, status: "TRS_FAIL" }, app())).toBe(
      "fail",
    );
    // A disabled application keeps every component grey.
    const c = { name: "db", hasComponent: true, enabled: true, status: "TRS_FAIL" };
    expect(componentState(c, app({ appStatus: off() }))).toBe("disabled");
  });
});

describe("lastRunTime", () => {
  it("reads the timestamp; an empty one is none", () => {
    expect(lastRunTime(app({ lastRun: "2024-05-01T18:00:00Z" }))).toBe("2024-05-01T18:00:00Z");
    expect(lastRunTime(app({ lastRun: "" }))).toBeNull();
  });
});

describe("failing applications first", () => {
  it("tells a failing application by any enabled flag", () => {
    expect(appFailing(app())).toBe(false);
    expect(appFailing(app({ agentStatus: on("TRS_FAIL") }))).toBe(true);
    expect(appFailing(app({ agentStatus: off("TRS_FAIL") }))).toBe(false);
  });
  it("puts them first, each part in its order", () => {
    const apps = [
      app({ clientEndPoint: "a" }),
      app({ clientEndPoint: "b", appStatus: on("TRS_FAIL") }),
      app({ clientEndPoint: "c" }),
      app({ clientEndPoint: "d", telcoStatus: on("TRS_FAIL") }),
    ];
    expect(failingFirst(apps).map((a) => a.clientEndPoint)).toEqual(["b", "d", "a", "c"]);
  });
});
