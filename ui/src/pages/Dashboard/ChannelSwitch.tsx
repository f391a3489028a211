// Digital / Voice selector of the journey diagram.
import { useLingui } from "@lingui/react/macro";
import type { Channel } from "./prefs";

export function ChannelSwitch({ channel, onChannel }: { channel: Channel; onChannel: (c: Channel) => void }) {
  const { t } = useLingui();
  const opt = (c: Channel, label: string) => (
    <button
      type="button"
      class={`seg-option ${channel === c ? "is-on" : ""}`}
      aria-pressed={channel === c}
      onClick={() => onChannel(c)}
      data-testid={`channel-${c}`}
    >
      {label}
    </button>
  );
  return (
    <fieldset class="seg" aria-label={t`Channel`}>
      {opt("web", t`Digital`)}
      {opt("voice", t`Voice`)}
    </fieldset>
  );
}
