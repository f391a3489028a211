// 1. Client Experience Journey: Simulated Caller -> Telco/Internet -> IVR/Chatbot -> Agent.
import { plural } from "@lingui/core/macro";
import { useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";
import { memo } from "react";
import { ChannelSwitch } from "./ChannelSwitch";
import type { ClientAppHealth, NodeState } from "./health";
import { journeyFor } from "./health";
import { AgentIcon, CallerIcon, ChatbotIcon, ExpandIcon, InternetIcon, IvrIcon, TelcoIcon } from "./icons";
import type { Channel } from "./prefs";

export interface JourneyDiagramProps {
  channel: Channel;
  onChannel: (c: Channel) => void;
  apps: ClientAppHealth[];
  loading: boolean;
  isPhone: boolean;
  onDetails: () => void;
}

export function useStateText() {
  const { t } = useLingui();
  return (s: NodeState) => (s === "pass" ? t`Pass` : s === "fail" ? t`Failure` : t`Disabled`);
}

function Node(props: {
  id: string;
  label: string;
  state: NodeState;
  icon: ComponentChildren;
  badge?: ComponentChildren;
  stateText: string;
}) {
  const { t } = useLingui();
  const name = props.label;
  const state = props.stateText;
  return (
    <li class={`jn-node is-${props.state}`} data-testid={`journey-${props.id}`} data-state={props.state}>
      <span class="jn-circle" title={t`${name}: ${state}`}>
        {props.icon}
        {props.badge}
      </span>
      <span class="jn-label">{props.label}</span>
      <span class="visually-hidden">{props.stateText}</span>
    </li>
  );
}

const Link = () => (
  <li class="jn-link" aria-hidden="true">
    <span />
  </li>
);

export const JourneyDiagram = memo(function JourneyDiagram({
  channel,
  onChannel,
  apps,
  loading,
  isPhone,
  onDetails,
}: JourneyDiagramProps) {
  const { t } = useLingui();
  const stateText = useStateText();
  const j = journeyFor(apps);
  const voice = channel === "voice";
  const { failing, enabled } = j.botFailures;
  const showCount = voice && !isPhone && enabled > 0;
  const size = isPhone ? 22 : 30;

  return (
    <section class="card journey-card" aria-labelledby="journey-title" data-testid="journey" data-channel={channel}>
      <header class="card-header">
        <h2 class="card-title" id="journey-title">
          {t`Client Experience Journey`}
        </h2>
        <div class="card-actions">
          <ChannelSwitch channel={channel} onChannel={onChannel} />
          {isPhone ? (
            <button type="button" class="button secondary small" onClick={onDetails} data-testid="health-details">
              {t`Details`}
            </button>
          ) : (
            <button
              type="button"
              class="icon-button"
              onClick={onDetails}
              aria-label={t`Client Experience Components Health Status`}
              title={t`Client Experience Components Health Status`}
              data-testid="health-details"
            >
              <ExpandIcon size={18} />
            </button>
          )}
        </div>
      </header>
      <ol class={`journey ${loading ? "is-loading" : ""}`} aria-busy={loading}>
        <Node
          id="caller"
          label={t`Simulated Caller`}
          state={j.caller}
          icon={<CallerIcon size={size} />}
          stateText={stateText(j.caller)}
        />
        <Link />
        <Node
          id="network"
          label={voice ? t`Telco` : t`Internet`}
          state={j.network}
          icon={voice ? <TelcoIcon size={size} /> : <InternetIcon size={size} />}
          stateText={stateText(j.network)}
        />
        <Link />
        <Node
          id="bot"
          label={voice ? t`IVR` : t`Chatbot`}
          state={j.bot}
          icon={voice ? <IvrIcon size={size} /> : <ChatbotIcon size={size} />}
          stateText={stateText(j.bot)}
          badge={
            showCount ? (
              <span
                class="jn-badge"
                data-testid="ivr-failures"
                title={plural(failing, {
                  one: `# of ${enabled} IVR applications failing`,
                  other: `# of ${enabled} IVR applications failing`,
                })}
              >
                {failing}/{enabled}
              </span>
            ) : undefined
          }
        />
        <Link />
        <Node
          id="agent"
          label={t`Agent`}
          state={j.agent}
          icon={<AgentIcon size={size} />}
          stateText={stateText(j.agent)}
        />
      </ol>
      {/* What the journey tells, and why it may differ from the donut (phone): the
          journey is the components' health at the applications' last check, for one channel;
          the donut counts the test runs of the chosen groups of both channels. */}
      <p class="journey-note muted" data-testid="journey-note">
        {voice
          ? t`The components’ health at the last check of the Voice applications. Test run results are in Overall Health.`
          : t`The components’ health at the last check of the Digital applications. Test run results are in Overall Health.`}
      </p>
    </section>
  );
});
