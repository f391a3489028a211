// The run of an alert, reached from the alert's runs (`?alert={id}` in the run's address): the
// alert's state and its actions at hand, without going back to it: acknowledge and mute (the
// alert screen's own buttons, Lifecycle.tsx) and the ticket (the shared TicketDialog).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link } from "wouter";
import { alertKeys, useAlertEvent } from "../../api/queries/alerts";
import { useJiraConfig } from "../../api/queries/jira";
import { queryClient } from "../../lib/queryClient";
import { canWrite, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { Acknowledgement, MuteButtons } from "../Alerts/Lifecycle";
import { openState, tracksAcknowledgement } from "../Alerts/rules";
import { TicketDialog } from "../Tickets/TicketDialog";

export function AlertContext({ alertId }: { alertId: number }) {
  const { t } = useLingui();
  const event = useAlertEvent(alertId);
  const me = useStore(session);
  const writable = canWrite(me);
  const tickets = writable && !!useJiraConfig().data?.configured;
  const [ticketOpen, setTicketOpen] = useState(false);
  const d = event.data;
  if (!d) return null;
  const open = openState(d);
  const key = d.jiraTicket ?? "";
  const id = alertId;
  return (
    <div class="card run-alert" data-testid="run-alert" data-alert-id={id}>
      <p>
        {t`This run belongs to`} <Link href={`/alert/${id}`}>{t`Alert ${id}`}</Link>
        {open === true ? ` · ${t`Ongoing`}` : open === false ? ` · ${t`Closed`}` : ""}
      </p>
      <div class="run-alert-actions">
        <Acknowledgement id={id} event={d} writable={writable} />
        {writable && open === true && tracksAcknowledgement(d) ? <MuteButtons id={id} /> : null}
        {tickets ? (
          <button
            type="button"
            class="button secondary"
            data-testid="run-alert-ticket"
            aria-label={key ? t`Edit ticket ${key}` : t`Create ticket for alert ${id}`}
            onClick={() => setTicketOpen(true)}
          >
            {key || t`Ticket`}
          </button>
        ) : null}
      </div>
      <TicketDialog
        open={ticketOpen}
        target={{ alertId: id, ticket: d.jiraTicket, name: t`Alert ${id}` }}
        username={me?.username ?? ""}
        onClose={() => setTicketOpen(false)}
        onCreated={() => void queryClient.invalidateQueries({ queryKey: alertKeys.detail(id) })}
      />
    </div>
  );
}
