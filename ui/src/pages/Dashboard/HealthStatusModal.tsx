// The modal 'Client Experience Components Health Status': each client application of the
// channel with its component database icons, agent phone icon, endpoint name and last run.
import { useLingui } from "@lingui/react/macro";
import { memo } from "react";
import { Modal } from "../../components/Modal";
import { formatSiteTime, zoneLabel } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { appFailing, type ClientAppHealth, componentState, failingFirst, flagState, lastRunTime } from "./health";
import { AgentPhoneIcon, DatabaseIcon } from "./icons";
import { useStateText } from "./JourneyDiagram";

export interface HealthStatusModalProps {
  open: boolean;
  onClose: () => void;
  apps: ClientAppHealth[];
  channelName: string;
}

export const HealthStatusModal = memo(function HealthStatusModal({
  open,
  onClose,
  apps,
  channelName,
}: HealthStatusModalProps) {
  const { t, i18n } = useLingui();
  const stateText = useStateText();
  const timeZone = useSiteTimeZone();
  // Whose clock the last-run times are on (the site's), as it is now.
  const zone = zoneLabel(new Date(), timeZone, i18n.locale);
  return (
    <Modal
      open={open}
      onClose={onClose}
      size="large"
      title={t`Client Experience Components Health Status`}
      testId="health-modal"
    >
      <p class="muted small-text" data-testid="health-subtitle">
        {channelName}
        {zone ? ` · ${t`Times in ${zone}`}` : ""}
      </p>
      {apps.length === 0 ? (
        <p class="empty" data-testid="health-empty">
          {t`No client applications report on this channel.`}
        </p>
      ) : (
        <ul class="health-list">
          <li class="health-row health-head" aria-hidden="true">
            <span>{t`Components`}</span>
            <span>{t`Agent`}</span>
            <span>{t`Endpoint`}</span>
            <span>{t`Last Run`}</span>
          </li>
          {failingFirst(apps).map((app, i) => {
            const failing = appFailing(app);
            const agent = flagState(app.agentStatus);
            const when = formatSiteTime(lastRunTime(app), timeZone, i18n.locale);
            const name = t`Agent`;
            const state = stateText(agent);
            const agentLabel = t`${name}: ${state}`;
            return (
              <li
                class={`health-row${failing ? " is-failing" : ""}`}
                key={`${app.clientEndPoint}-${i}`}
                data-testid="health-app"
                data-failing={failing}
              >
                <span class="health-components">
                  {(app.componentStatus ?? []).map((c) => {
                    const s = componentState(c, app);
                    const name = c.name;
                    const state = c.hasComponent ? stateText(s) : t`Not present`;
                    const label = t`${name}: ${state}`;
                    return (
                      <span class="hs-component" key={c.name} title={label}>
                        <span class={`hs-icon is-${s}`} data-state={s} role="img" aria-label={label}>
                          <DatabaseIcon size={20} />
                        </span>
                        <span class="hs-name" aria-hidden="true">
                          {name}
                        </span>
                      </span>
                    );
                  })}
                </span>
                <span
                  class={`hs-icon is-${agent}`}
                  title={agentLabel}
                  role="img"
                  aria-label={agentLabel}
                  data-testid="health-agent"
                  data-state={agent}
                >
                  <AgentPhoneIcon size={20} />
                </span>
                <span class="health-endpoint" data-testid="health-endpoint">
                  {app.clientEndPoint}
                </span>
                <span class="health-time" data-testid="health-lastrun">
                  <span class="health-time-label">{t`Last Run`} </span>
                  <span class="health-time-value">{when || "—"}</span>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </Modal>
  );
});
