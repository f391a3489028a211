import { describe, expect, it } from "vitest";
import { canAcknowledgeIncident, canMuteIncident, filterOfParam, incidentPath, stateKind } from "./rules";

const base = { openAlertCount: 3, acknowledgedAlertCount: 0, alertCount: 4 };

describe("incident rules", () => {
  it("offers acknowledge while an open alert is not acknowledged", () => {
    expect(canAcknowledgeIncident({ ...base, state: "open" })).toBe(true);
    expect(canAcknowledgeIncident({ ...base, state: "acknowledged", acknowledgedAlertCount: 3 })).toBe(false);
    expect(canAcknowledgeIncident({ ...base, state: "resolved", openAlertCount: 0 })).toBe(false);
  });
  it("offers mute until the incident resolves", () => {
    expect(canMuteIncident({ ...base, state: "acknowledged" })).toBe(true);
    expect(canMuteIncident({ ...base, state: "resolved", openAlertCount: 0 })).toBe(false);
  });
  it("colours the state and reads the filter", () => {
    expect(stateKind({ ...base, state: "open" })).toBe("failure");
    expect(stateKind({ ...base, state: "acknowledged" })).toBe("warning");
    expect(stateKind({ ...base, state: "resolved" })).toBe("pass");
    expect(filterOfParam("open")).toBe("open");
    expect(filterOfParam("x")).toBeUndefined();
    expect(incidentPath(12)).toBe("/incident/12");
  });
});
