// Client Experience Journey: node colours from the client applications' health (spec §4).
//
// - A status flag that is not enabled is disabled (grey).
// - An enabled flag whose status is 'TRS_PASS' passes (green); any other enabled status fails (red).
// - A node over several applications is red when any enabled flag fails, green when every
//   enabled flag passes, grey when none is enabled.

export const PASS_STATUS = "TRS_PASS";

export type NodeState = "pass" | "fail" | "disabled";

import type { ChannelHealth, ClientAppHealth, ComponentPresence, StatusFlag } from "../../api/types";

export type { ChannelHealth, ClientAppHealth };

export function flagState(flag: StatusFlag | null | undefined): NodeState {
  if (!flag?.enabled) return "disabled";
  return flag.status === PASS_STATUS ? "pass" : "fail";
}

export function combineStates(states: NodeState[]): NodeState {
  if (states.includes("fail")) return "fail";
  if (states.includes("pass")) return "pass";
  return "disabled";
}

/** Failing enabled flags over enabled flags: the IVR node's 'x/y'. */
export function failureCount(flags: (StatusFlag | null | undefined)[]): { failing: number; enabled: number } {
  let failing = 0;
  let enabled = 0;
  for (const f of flags) {
    const s = flagState(f);
    if (s === "disabled") continue;
    enabled += 1;
    if (s === "fail") failing += 1;
  }
  return { failing, enabled };
}

export interface Journey {
  /** The simulated caller: the test engine placing the calls or chats. */
  caller: NodeState;
  /** Telco (voice) or Internet (digital): telcoStatus. */
  network: NodeState;
  /** IVR (voice) or Chatbot (digital): appStatus. */
  bot: NodeState;
  /** Agent: agentStatus. */
  agent: NodeState;
  /** Failing enabled applications / enabled applications (appStatus). */
  botFailures: { failing: number; enabled: number };
}

/**
 * The journey of one channel. The simulated caller has no status of its own: it is green when
 * the channel has at least one enabled status (some application is being exercised) and grey
 * otherwise; it is never red.
 */
export function journeyFor(apps: ClientAppHealth[]): Journey {
  const network = combineStates(apps.map((a) => flagState(a.telcoStatus)));
  const bot = combineStates(apps.map((a) => flagState(a.appStatus)));
  const agent = combineStates(apps.map((a) => flagState(a.agentStatus)));
  const anyEnabled = [network, bot, agent].some((s) => s !== "disabled");
  return {
    caller: anyEnabled ? "pass" : "disabled",
    network,
    bot,
    agent,
    botFailures: failureCount(apps.map((a) => a.appStatus)),
  };
}

/** The client applications of one channel ('voice' or 'web'), from the health list. */
export function appsOfChannel(health: ChannelHealth[], channel: string): ClientAppHealth[] {
  const out: ClientAppHealth[] = [];
  for (const h of health) {
    for (const app of h.clientApps ?? []) {
      const ch = app.channel ?? h.channel;
      if (ch === channel) out.push(app);
    }
  }
  return out;
}

/**
 * Colour of one component database icon in the health modal: a component the application has
 * and that is enabled is coloured with its own status when the server gives one (cxwatch's
 * optional `status`: only the component that failed is red), else with the application's own
 * state (the spec's shape: green pass, red failure); a disabled or absent component, or any
 * component of a disabled application, is grey.
 */
export function componentState(c: ComponentPresence, app: ClientAppHealth): NodeState {
  if (!c.hasComponent || !c.enabled) return "disabled";
  const own = c.status;
  if (typeof own === "string" && app.appStatus?.enabled) return own === PASS_STATUS ? "pass" : "fail";
  return flagState(app.appStatus);
}

/** The last run time of an application (UTC), or null when it has none. */
export function lastRunTime(app: ClientAppHealth): string | null {
  return app.lastRun || null;
}

/** An application fails when any of its enabled flags (IVR, telco, agent) or components fails. */
export function appFailing(app: ClientAppHealth): boolean {
  const flags = [app.appStatus, app.telcoStatus, app.agentStatus].map(flagState);
  if (flags.includes("fail")) return true;
  return (app.componentStatus ?? []).some((c) => componentState(c, app) === "fail");
}

/** The health modal's order: failing applications first, each part in the order given. */
export function failingFirst(apps: readonly ClientAppHealth[]): ClientAppHealth[] {
  return [...apps.filter(appFailing), ...apps.filter((a) => !appFailing(a))];
}
