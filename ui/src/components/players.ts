// Several audio players on one page (a run's recording and each step's audio): starting one
// stops the others (spec §2 'stop markers between multiple players').

export interface Playable {
  pause(): void;
  readonly paused: boolean;
}

const players = new Set<Playable>();

/** Adds a player to the page's set; returns the function that removes it. */
export function registerPlayer(p: Playable): () => void {
  players.add(p);
  return () => {
    players.delete(p);
  };
}

/** Pauses every other registered player that is playing; returns how many it paused. */
export function pauseOthers(current: Playable): number {
  let n = 0;
  for (const p of players) {
    if (p !== current && !p.paused) {
      p.pause();
      n += 1;
    }
  }
  return n;
}

/** Volume slider (spec §2): 0.01 to 1 in steps of 0.025. */
export const VOLUME_MIN = 0.01;
export const VOLUME_MAX = 1;
export const VOLUME_STEP = 0.025;
/**
 * The volume of a slider position. From 0.01 by 0.025 the last step is 0.985 (a range input
 * counts its steps from its minimum): that last step is full volume, so 1 is reached.
 */
export function sliderVolume(v: number): number {
  if (!Number.isFinite(v)) return VOLUME_MAX;
  if (v > VOLUME_MAX - VOLUME_STEP) return VOLUME_MAX;
  return Math.max(VOLUME_MIN, v);
}

/** How far 'forward' skips, in seconds. */
export const FORWARD_SECONDS = 5;

/** The position after 'forward': `FORWARD_SECONDS` on, at most the end. */
export function forwardFrom(time: number, duration: number): number {
  const end = Number.isFinite(duration) && duration > 0 ? duration : time + FORWARD_SECONDS;
  return Math.min(time + FORWARD_SECONDS, end);
}

/** 'm:ss' of a position in seconds. */
export function clock(sec: number): string {
  const s = Number.isFinite(sec) && sec > 0 ? Math.floor(sec) : 0;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
