// Pieces the incident screens share: the state line, the title, and the actions that act on every
// open alert of an incident (acknowledge, mute for 1 h / 4 h / until tomorrow 08:00).
import { useLingui } from "@lingui/react/macro";
import { type Incident, useAcknowledgeIncident, useMuteIncident } from "../../api/queries/incidents";
import { showSuccess } from "../../lib/banners";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { MUTE_CHOICES, type MuteChoice, muteUntil } from "../Maintenance/rules";
import { canAcknowledgeIncident, canMuteIncident, stateKind } from "./rules";

/** 'Card Services IVR' (the shared entry point) or 'Group Cards - Lost & Stolen'. */
export function useIncidentTitle() {
  const { t } = useLingui();
  return (i: Pick<Incident, "incidentId" | "title" | "titleKind">) => {
    const id = i.incidentId;
    const name = i.title;
    return i.titleKind === "entryPoint" ? t`Incident ${id}: ${name}` : t`Incident ${id}: group ${name}`;
  };
}

/** The state: open and not acknowledged, acknowledged by whom at when, or resolved at when; and the mute. */
export function IncidentState(props: { incident: Incident; compact?: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const i = props.incident;
  const fmt = (v: string | null | undefined) => (v ? formatSiteTime(v, zone, i18n.locale).slice(0, 16) : "");
  const who = i.acknowledgedBy ?? "";
  const when = fmt(i.acknowledgedTime);
  const open = i.openAlertCount;
  const all = i.alertCount;
  const acked = i.acknowledgedAlertCount;
  const resolved = fmt(i.resolvedTime);
  const text =
    i.state === "resolved"
      ? t`Resolved ${resolved}`
      : i.state === "acknowledged"
        ? t`Acknowledged by ${who} ${when}`
        : acked > 0
          ? t`Open: ${acked} of ${open} open alerts acknowledged`
          : t`Open, not acknowledged`;
  const mutedBy = i.mutedBy ?? "";
  const until = fmt(i.mutedUntil);
  return (
    <span class="incident-state" data-testid="incident-state" data-state={i.state}>
      <span class={`incident-badge incident-${stateKind(i)}`}>{text}</span>
      {i.mutedUntil ? (
        <span class="incident-muted" data-testid="incident-muted">
          {t`Muted until ${until} by ${mutedBy}`}
        </span>
      ) : null}
      {props.compact ? null : (
        <span class="muted" data-testid="incident-counts">
          {t`${open} of ${all} alerts open`}
        </span>
      )}
    </span>
  );
}

/** Acknowledge every open alert, and mute them, for read-write accounts while it is not resolved. */
export function IncidentActions(props: { incident: Incident; primary?: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const ack = useAcknowledgeIncident();
  const mute = useMuteIncident();
  const i = props.incident;
  const id = i.incidentId;
  const n = i.openAlertCount;
  const label = (c: MuteChoice) =>
    c === "1h" ? t`Mute for 1 h` : c === "4h" ? t`Mute for 4 h` : t`Mute until tomorrow 08:00`;
  if (!canAcknowledgeIncident(i) && !canMuteIncident(i)) return null;
  return (
    <div class="incident-actions" data-testid="incident-actions">
      {canAcknowledgeIncident(i) ? (
        <button
          type="button"
          class={props.primary === false ? "button secondary" : "button primary"}
          data-testid="incident-acknowledge"
          disabled={ack.isPending}
          onClick={() =>
            ack.mutate(id, {
              onSuccess: () => showSuccess(t`Incident ${id} is acknowledged: you have its ${n} open alerts.`),
            })
          }
        >
          {t`Acknowledge incident (${n} alerts)`}
        </button>
      ) : null}
      {canMuteIncident(i) ? (
        <fieldset class="mute-choices" data-testid="incident-mute-choices">
          <legend class="visually-hidden">{t`Mute the test cases of this incident's open alerts`}</legend>
          {MUTE_CHOICES.map((c) => (
            <button
              key={c}
              type="button"
              class="button secondary"
              data-testid={`incident-mute-${c}`}
              disabled={mute.isPending}
              onClick={() =>
                mute.mutate(
                  { id, until: muteUntil(c, new Date(), zone).toISOString() },
                  {
                    onSuccess: (d) => {
                      const until = d.mutedUntil ? formatSiteTime(d.mutedUntil, zone, i18n.locale).slice(0, 16) : "";
                      showSuccess(
                        t`Incident ${id} muted until ${until}: no alert opens or notifies for its test cases meanwhile.`,
                      );
                    },
                  },
                )
              }
            >
              {label(c)}
            </button>
          ))}
        </fieldset>
      ) : null}
    </div>
  );
}
