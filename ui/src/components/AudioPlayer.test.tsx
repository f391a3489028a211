// @vitest-environment jsdom
// The player's behaviour in a DOM (jsdom has no media playback: play and pause are stood in for
// on the element, the way a browser reports them, with 'play' and 'pause' events).
import { i18n } from "@lingui/core";
import { I18nProvider } from "@lingui/react";
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AudioPlayer } from "./AudioPlayer";

beforeAll(() => {
  i18n.loadAndActivate({ locale: "en", messages: {} });
  const proto = HTMLMediaElement.prototype as unknown as Record<string, unknown>;
  Object.defineProperty(proto, "play", {
    configurable: true,
    value(this: HTMLMediaElement) {
      Object.defineProperty(this, "paused", { configurable: true, value: false });
      this.dispatchEvent(new Event("play"));
      return Promise.resolve();
    },
  });
  Object.defineProperty(proto, "pause", {
    configurable: true,
    value(this: HTMLMediaElement) {
      Object.defineProperty(this, "paused", { configurable: true, value: true });
      this.dispatchEvent(new Event("pause"));
    },
  });
  let n = 0;
  URL.createObjectURL = () => `blob:test/${++n}`;
  URL.revokeObjectURL = () => {};
});

let root: HTMLElement;
afterEach(() => {
  render(null, root);
  root.remove();
});

async function mount(loads: ReturnType<typeof vi.fn>[]) {
  root = document.createElement("div");
  document.body.appendChild(root);
  await act(() => {
    render(
      <I18nProvider i18n={i18n}>
        {loads.map((load, i) => (
          <AudioPlayer key={i} label={`Clip ${i}`} load={load as never} testId={`p${i}`} />
        ))}
      </I18nProvider>,
      root,
    );
  });
  const q = (i: number, id: string) => root.querySelector(`[data-testid=p${i}] [data-testid=${id}]`) as HTMLElement;
  const state = (i: number) => root.querySelector(`[data-testid=p${i}]`)?.getAttribute("data-state");
  return { q, state };
}

const click = (el: HTMLElement) => act(async () => el.click());

describe("AudioPlayer", () => {
  it("fetches only when played, and starting one stops the other", async () => {
    const loads = [0, 1].map(() => vi.fn(async () => new Blob(["RIFF"], { type: "audio/wav" })));
    const { q, state } = await mount(loads);
    expect(loads[0]).not.toHaveBeenCalled();
    expect(state(0)).toBe("idle");
    await click(q(0, "audio-play"));
    await act(async () => {});
    expect(loads[0]).toHaveBeenCalledTimes(1);
    expect(state(0)).toBe("playing");
    await click(q(1, "audio-play"));
    await act(async () => {});
    expect(state(1)).toBe("playing");
    expect(state(0)).toBe("paused");
    expect(loads[1]).toHaveBeenCalledTimes(1);
    // Playing the first again: no second fetch, the second stops.
    await click(q(0, "audio-play"));
    expect(loads[0]).toHaveBeenCalledTimes(1);
    expect(state(0)).toBe("playing");
    expect(state(1)).toBe("paused");
  });

  it("seeks, goes forward, finishes back at the start; volume 0.01 to 1 by 0.025", async () => {
    const load = vi.fn(async () => new Blob(["RIFF"], { type: "audio/wav" }));
    const { q } = await mount([load]);
    const vol = q(0, "audio-volume");
    expect([vol.getAttribute("min"), vol.getAttribute("max"), vol.getAttribute("step")]).toEqual([
      "0.01",
      "1",
      "0.025",
    ]);
    expect((q(0, "audio-seek") as HTMLInputElement).disabled).toBe(true);
    await click(q(0, "audio-play"));
    await act(async () => {});
    const audio = q(0, "audio") as HTMLAudioElement;
    let now = 0;
    Object.defineProperty(audio, "currentTime", {
      configurable: true,
      get: () => now,
      set: (v: number) => {
        now = v;
      },
    });
    Object.defineProperty(audio, "duration", { configurable: true, value: 30 });
    await act(async () => {
      audio.dispatchEvent(new Event("durationchange"));
    });
    const seek = q(0, "audio-seek") as HTMLInputElement;
    expect(seek.disabled).toBe(false);
    await act(async () => {
      seek.value = "12";
      seek.dispatchEvent(new Event("input", { bubbles: true }));
    });
    expect(now).toBe(12);
    await click(q(0, "audio-forward"));
    expect(now).toBe(17);
    await click(q(0, "audio-finish"));
    expect(now).toBe(0);
    expect(audio.paused).toBe(true);
    // The slider's last step (0.985 from 0.01 by 0.025) is full volume; the first is 0.01.
    const setVolume = async (v: string) => {
      await act(async () => {
        (vol as HTMLInputElement).value = v;
        vol.dispatchEvent(new Event("input", { bubbles: true }));
      });
    };
    await setVolume("0.985");
    expect(audio.volume).toBe(1);
    await setVolume("0.96");
    expect(audio.volume).toBeCloseTo(0.96);
    await setVolume("0.01");
    expect(audio.volume).toBeCloseTo(0.01);
  });

  it("says so when the audio cannot be fetched", async () => {
    const load = vi.fn(async () => {
      throw new Error("403");
    });
    const { q } = await mount([load]);
    await click(q(0, "audio-play"));
    await act(async () => {});
    expect(root.textContent).toContain("The audio could not be played.");
  });
});
