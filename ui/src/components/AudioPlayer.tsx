// The audio player of a run (spec §2 'Test run detail'): play, pause, finish (back to the
// start), forward, a seek bar and a volume slider (0.01 to 1 in 0.025 steps). The audio is
// fetched only when first played (`load`, with the console's token), then played from memory
// so seeking is instant. Starting one player stops the others on the page.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useId, useRef, useState } from "react";
import { DownloadIcon, ForwardIcon, PauseIcon, PlayIcon, StopIcon, VolumeIcon } from "./icons";
import {
  clock,
  forwardFrom,
  pauseOthers,
  registerPlayer,
  sliderVolume,
  VOLUME_MAX,
  VOLUME_MIN,
  VOLUME_STEP,
} from "./players";
import "./AudioPlayer.css";

export interface AudioPlayerProps {
  /** What is played, for the controls' names ('Call recording', 'Step 3 audio'). */
  label: string;
  /** Fetches the audio; called on the first play. */
  load: (signal: AbortSignal) => Promise<Blob>;
  /** With it, a download button beside the controls. */
  onDownload?: () => void;
  testId?: string;
}

export function AudioPlayer({ label, load, onDownload, testId }: AudioPlayerProps) {
  const { t } = useLingui();
  const id = useId();
  const audio = useRef<HTMLAudioElement>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [state, setState] = useState<"idle" | "loading" | "error">("idle");
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  const [volume, setVolume] = useState(VOLUME_MAX);
  const abort = useRef<AbortController | null>(null);
  const wantPlay = useRef(false);

  useEffect(() => {
    const el = audio.current;
    if (!el) return;
    return registerPlayer(el);
  }, []);
  useEffect(
    () => () => {
      abort.current?.abort();
    },
    [],
  );
  useEffect(
    () => () => {
      if (src) URL.revokeObjectURL(src);
    },
    [src],
  );
  useEffect(() => {
    if (audio.current) audio.current.volume = volume;
  }, [volume]);

  const play = async () => {
    const el = audio.current;
    if (!el) return;
    if (src) {
      void el.play().catch(() => setState("error"));
      return;
    }
    if (state === "loading") return;
    setState("loading");
    const ctl = new AbortController();
    abort.current = ctl;
    try {
      const blob = await load(ctl.signal);
      wantPlay.current = true;
      setSrc(URL.createObjectURL(blob));
      setState("idle");
    } catch {
      if (!ctl.signal.aborted) setState("error");
    }
  };

  // The first play starts once the fetched audio is the element's source.
  useEffect(() => {
    const el = audio.current;
    if (!el || !src || !wantPlay.current) return;
    wantPlay.current = false;
    void el.play().catch(() => setState("error"));
  }, [src]);

  const pause = () => audio.current?.pause();
  const finish = () => {
    const el = audio.current;
    if (!el) return;
    el.pause();
    el.currentTime = 0;
    setTime(0);
  };
  const forward = () => {
    const el = audio.current;
    if (!el || !src) return;
    el.currentTime = forwardFrom(el.currentTime, el.duration);
  };
  const seek = (to: number) => {
    const el = audio.current;
    if (!el || !src) return;
    el.currentTime = to;
    setTime(to);
  };

  const loaded = !!src && duration > 0;
  const at = clock(time);
  const of = clock(duration);
  return (
    <fieldset
      class={playing ? "audio-player playing" : "audio-player"}
      aria-label={label}
      data-testid={testId ?? "audio-player"}
      data-state={playing ? "playing" : state === "loading" ? "loading" : src ? "paused" : "idle"}
    >
      {/* biome-ignore lint/a11y/useMediaCaption: call recordings have no captions; the step shows the recognised utterance */}
      <audio
        ref={audio}
        src={src ?? undefined}
        preload="metadata"
        onPlay={(e) => {
          pauseOthers(e.currentTarget);
          setPlaying(true);
        }}
        onPause={() => setPlaying(false)}
        onEnded={() => setPlaying(false)}
        onTimeUpdate={(e) => setTime(e.currentTarget.currentTime)}
        onLoadedMetadata={(e) => setDuration(Number.isFinite(e.currentTarget.duration) ? e.currentTarget.duration : 0)}
        onDurationChange={(e) => setDuration(Number.isFinite(e.currentTarget.duration) ? e.currentTarget.duration : 0)}
        onError={() => src && setState("error")}
        data-testid="audio"
      />
      {playing ? (
        <button
          type="button"
          class="icon-button"
          onClick={pause}
          aria-label={t`Pause ${label}`}
          data-testid="audio-pause"
        >
          <PauseIcon size={18} />
        </button>
      ) : (
        <button
          type="button"
          class="icon-button"
          onClick={() => void play()}
          aria-label={t`Play ${label}`}
          aria-busy={state === "loading" ? "true" : undefined}
          data-testid="audio-play"
        >
          <PlayIcon size={18} />
        </button>
      )}
      <button
        type="button"
        class="icon-button"
        onClick={finish}
        disabled={!src}
        aria-label={t`Finish ${label}`}
        data-testid="audio-finish"
      >
        <StopIcon size={16} />
      </button>
      <button
        type="button"
        class="icon-button"
        onClick={forward}
        disabled={!src}
        aria-label={t`Forward ${label}`}
        data-testid="audio-forward"
      >
        <ForwardIcon size={16} />
      </button>
      <input
        type="range"
        class="audio-seek"
        min={0}
        max={loaded ? duration : 1}
        step={0.1}
        value={loaded ? time : 0}
        disabled={!loaded}
        onInput={(e) => seek(Number(e.currentTarget.value))}
        aria-label={t`Position in ${label}`}
        aria-valuetext={t`${at} of ${of}`}
        data-testid="audio-seek"
      />
      <span class="audio-time" aria-hidden="true">
        {at} / {of}
      </span>
      <label class="audio-volume" for={`${id}-vol`}>
        <VolumeIcon size={16} />
        <span class="visually-hidden">{t`Volume of ${label}`}</span>
      </label>
      <input
        id={`${id}-vol`}
        type="range"
        class="audio-volume-range"
        min={VOLUME_MIN}
        max={VOLUME_MAX}
        step={VOLUME_STEP}
        value={volume}
        onInput={(e) => setVolume(sliderVolume(Number(e.currentTarget.value)))}
        data-testid="audio-volume"
      />
      {onDownload ? (
        <button
          type="button"
          class="icon-button"
          onClick={onDownload}
          aria-label={t`Download ${label}`}
          data-testid="audio-download"
        >
          <DownloadIcon size={18} />
        </button>
      ) : null}
      {state === "error" ? (
        <span class="error-text audio-error" role="alert">
          {t`The audio could not be played.`}
        </span>
      ) : null}
    </fieldset>
  );
}
