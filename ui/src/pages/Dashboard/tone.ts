// The wall's tone when a group starts failing: two short beeps synthesised with the Web Audio
// API (no audio file is fetched). Browsers let a page play sound only after a gesture on it:
// the click that starts the wall with sound (or turns sound on in it) makes and resumes the
// audio context, which later tones reuse.

type Ctx = AudioContext;

let context: Ctx | null = null;
let played = 0;

function make(): Ctx | null {
  const Ctor =
    (globalThis as { AudioContext?: typeof AudioContext }).AudioContext ??
    (globalThis as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  return Ctor ? new Ctor() : null;
}

/** Called from a click: makes the audio context and lets it play. False when the browser has no Web Audio. */
export function unlockTone(): boolean {
  try {
    context ??= make();
    if (!context) return false;
    void context.resume();
    return true;
  } catch {
    return false;
  }
}

/** Whether a tone can play now (the context was unlocked by a gesture and runs). */
export function toneReady(): boolean {
  return context !== null && context.state === "running";
}

/** How many tones were started since the page loaded (the browser test reads it). */
export function tonesPlayed(): number {
  return played;
}

/** Two short beeps at 880 Hz, about 0.6 s in all; nothing without an unlocked context. */
export function playTone(): boolean {
  const ctx = context;
  if (ctx?.state !== "running") return false;
  const start = ctx.currentTime + 0.02;
  for (const at of [start, start + 0.3]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = 880;
    // A quick rise and fall: no click at either end.
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.3, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.22);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + 0.25);
  }
  played += 1;
  return true;
}
