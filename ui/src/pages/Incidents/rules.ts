// Pure rules of the incident screens: what the state line says and which actions are offered.

/** The fields of an incident these rules read. */
export interface IncidentLike {
  state: "open" | "acknowledged" | "resolved";
  openAlertCount: number;
  acknowledgedAlertCount: number;
  alertCount: number;
  mutedUntil?: string | null;
}

/** Acknowledging is offered while an open alert is not acknowledged. */
export function canAcknowledgeIncident(i: IncidentLike): boolean {
  return i.state === "open" && i.openAlertCount > 0;
}

/** Muting is offered while the incident is not resolved (muting again extends or adds a window). */
export function canMuteIncident(i: IncidentLike): boolean {
  return i.state !== "resolved" && i.openAlertCount > 0;
}

/** The state's kind for its badge: failing (open, nobody has it), handled (acknowledged), or over. */
export function stateKind(i: IncidentLike): "failure" | "warning" | "pass" {
  return i.state === "open" ? "failure" : i.state === "acknowledged" ? "warning" : "pass";
}

/** The incidents list's filter from the address: `open`, `resolved`, or all. */
export function filterOfParam(v: string | null): "open" | "resolved" | undefined {
  return v === "open" || v === "resolved" ? v : undefined;
}

/** The incident's page. */
export function incidentPath(id: number): string {
  return `/incident/${id}`;
}
