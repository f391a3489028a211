// The alert setting form's options: Attach Recording (voice groups, or before a group is
// chosen), Attach Ticket (offered with a Jira) with its details and whom the tickets go to,
// Notify on Recovery and Active.
import { useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";
import { type AlertSettingFormValues, type SettingForm, showsAttachRecording } from "./rules";

type Flag = "attachRecording" | "attachJiraTicket" | "notifyOnRecovery" | "active";

export function OptionFields({
  form,
  channel,
  ticketsOffered,
  ticketLine,
  onAttachTicket,
  onTicketDetails,
}: {
  form: SettingForm;
  /** The chosen group's channel, undefined before one is chosen. */
  channel: string | undefined;
  ticketsOffered: boolean;
  /** The line under Attach Ticket, when it is on. */
  ticketLine: ComponentChildren;
  /** Attach Ticket was turned on: the ticket details open. */
  onAttachTicket: () => void;
  onTicketDetails: () => void;
}) {
  const { t } = useLingui();
  const v = form.values;
  const check = (key: Flag, label: string, testId: string, onChange?: (on: boolean) => void) => (
    <label class="check-field" data-testid={`field-${testId}`}>
      <input
        type="checkbox"
        checked={v[key]}
        onChange={(e) =>
          (onChange ?? ((on: boolean) => form.set({ [key]: on } as Partial<AlertSettingFormValues>)))(
            e.currentTarget.checked,
          )
        }
        data-testid={`input-${testId}`}
      />
      <span>{label}</span>
    </label>
  );
  return (
    <div class="check-fields">
      {showsAttachRecording(channel) ? check("attachRecording", t`Attach Recording`, "attach-recording") : null}
      {ticketsOffered
        ? check("attachJiraTicket", t`Attach Ticket`, "attach-ticket", (on) => {
            form.set({ attachJiraTicket: on });
            if (on) onAttachTicket();
          })
        : null}
      {check("notifyOnRecovery", t`Notify on Recovery`, "recovery")}
      {check("active", t`Active`, "active")}
      {v.attachJiraTicket ? (
        <button type="button" class="button link" onClick={onTicketDetails} data-testid="ticket-details">
          {t`Ticket Details`}
        </button>
      ) : null}
      {v.attachJiraTicket ? (
        <p class="ticket-summary" data-testid="ticket-summary">
          {ticketLine}
        </p>
      ) : null}
    </div>
  );
}
