// The alert's life after it fires, cxwatch's additions to the alert screens: who
// acknowledged an event and the button that does it, the comments with their form, and the
// timeline of what happened. Each shows only when the API offers it (the event has
// `acknowledgedBy`, `comments`, `timeline`): a vendor's API behind the proxy has none of them.
// Read-only accounts see them and get no button (the server refuses them too).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { ApiError } from "../../api";
import { useAcknowledgeAlert, useCommentAlert } from "../../api/queries/alerts";
import { useMuteAlert, useUnmuteAlert } from "../../api/queries/maintenance";
import type { ActiveMute, AlertComment, MuteTarget, TimelineEntry } from "../../api/types";
import { showError, showSuccess } from "../../lib/banners";
import { deliveryReason } from "../../lib/deliveryReason";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { useContactTypeLabel } from "../Distributions/columns";
import { MUTE_CHOICES, type MuteChoice, muteUntil } from "../Maintenance/rules";
import {
  type Acknowledgeable,
  canAcknowledge,
  extendedUntil,
  notificationCause,
  openingOutcome,
  recipientShown,
} from "./rules";

/** Longest comment the server takes (api/alerts.rs MAX_COMMENT). */
const MAX_COMMENT = 4000;

/** 'Acknowledged by X at T', or the button that acknowledges (read-write accounts). */
export function Acknowledgement(props: {
  id: number;
  event: Acknowledgeable & { acknowledgedTime?: string | null };
  writable: boolean;
  compact?: boolean;
}) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const ack = useAcknowledgeAlert();
  const { event, id } = props;
  if (event.acknowledgedBy) {
    const who = event.acknowledgedBy;
    const when = event.acknowledgedTime ? formatSiteTime(event.acknowledgedTime, zone, i18n.locale) : "";
    return (
      <span class="alert-ack" data-testid="alert-acknowledged">
        {props.compact ? t`Acknowledged by ${who}` : t`Acknowledged by ${who} at ${when}`}
      </span>
    );
  }
  if (!props.writable || !canAcknowledge(event)) return null;
  return (
    <button
      type="button"
      class={props.compact ? "button link" : "button primary"}
      data-testid="acknowledge"
      aria-label={t`Acknowledge alert ${id}`}
      disabled={ack.isPending}
      onClick={() =>
        ack.mutate(id, {
          onSuccess: () => showSuccess(t`Alert ${id} is acknowledged: you have it.`),
        })
      }
    >
      {t`Acknowledge`}
    </button>
  );
}

/** The comments, oldest first, and the form that adds one (read-write accounts). */
export function Comments(props: { id: number; comments: AlertComment[]; writable: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const save = useCommentAlert();
  const [text, setText] = useState("");
  const [problem, setProblem] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    const comment = text.trim();
    if (!comment) {
      setProblem(t`Write a comment first.`);
      return;
    }
    if (comment.length > MAX_COMMENT) {
      setProblem(t`A comment has at most ${MAX_COMMENT} characters.`);
      return;
    }
    setProblem("");
    save.mutate(
      { id: props.id, comment },
      {
        onSuccess: () => setText(""),
        onError: (err) =>
          err instanceof ApiError && err.status === 400
            ? setProblem(t`A comment has at most ${MAX_COMMENT} characters.`)
            : showError(t`The comment could not be saved.`),
      },
    );
  };
  return (
    <section class="alert-comments" aria-labelledby="alert-comments-title">
      <h2 class="alert-section-title" id="alert-comments-title">{t`Comments`}</h2>
      {props.comments.length ? (
        <ol class="comment-list" data-testid="alert-comments">
          {props.comments.map((c) => (
            <li key={c.id} class="comment card" data-testid="alert-comment">
              <div class="comment-head">
                <strong>{c.author}</strong>
                <span class="muted">{formatSiteTime(c.time, zone, i18n.locale)}</span>
              </div>
              <p class="comment-text">{c.text}</p>
            </li>
          ))}
        </ol>
      ) : (
        <p class="muted" data-testid="alert-no-comments">{t`No comments yet.`}</p>
      )}
      {props.writable ? (
        <form class="comment-form" onSubmit={submit} noValidate>
          <label class="field">
            <span>{t`Add a comment`}</span>
            <textarea
              data-testid="comment-text"
              rows={3}
              value={text}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? "comment-problem" : undefined}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </label>
          {problem ? (
            <p class="field-error" id="comment-problem" role="alert">
              {problem}
            </p>
          ) : null}
          <div class="form-actions">
            <button type="submit" class="button primary" data-testid="comment-save" disabled={save.isPending}>
              {t`Add comment`}
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}

/** What happened to the event, oldest first. */
export function Timeline(props: { entries: TimelineEntry[]; listName?: string }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const channel = useContactTypeLabel();
  const state = (s: string) => (s === "sent" ? t`sent` : s === "failed" ? t`failed` : t`queued`);
  const opening = openingOutcome(props.entries);
  const opened = (text: string): string => {
    const { failed, total } = opening;
    switch (opening.outcome) {
      case "sent":
        return t`Opened; distribution list ${text} notified`;
      case "partly":
        return t`Opened; distribution list ${text} notified, ${failed} of ${total} sends failed`;
      case "failed":
        return t`Opened; every send to distribution list ${text} failed: nobody was notified`;
      case "pending":
        return t`Opened; notifying distribution list ${text}`;
      default:
        return t`Opened; nobody on distribution list ${text} was notified`;
    }
  };
  const what = (e: TimelineEntry): string => {
    const by = e.by ?? "";
    const text = e.text ?? "";
    switch (e.kind) {
      case "opened":
        return opened(text);
      case "notified": {
        const n = e.notification;
        if (!n) return t`Notified`;
        // Administrators see the address; others the list's name (and a webhook's host).
        const to = recipientShown(n, props.listName);
        const how = channel(n.type);
        const outcome = state(n.state);
        const cause = notificationCause(n.cause);
        return cause === "recovery"
          ? t`Recovery ${how} to ${to}: ${outcome}`
          : cause === "escalation"
            ? t`Escalation ${how} to ${to}: ${outcome}`
            : t`Alert ${how} to ${to}: ${outcome}`;
      }
      case "acknowledged":
        return t`Acknowledged by ${by}`;
      case "commented":
        return t`Comment by ${by}`;
      case "escalated":
        return t`Escalated: nobody acknowledged it in time`;
      case "recovered":
        return t`Recovered: a run passed`;
      default:
        return t`Closed`;
    }
  };
  return (
    <section class="alert-timeline" aria-labelledby="alert-timeline-title">
      <h2 class="alert-section-title" id="alert-timeline-title">{t`Timeline`}</h2>
      <ol class="timeline" data-testid="alert-timeline">
        {props.entries.map((e, i) => (
          <li
            key={i}
            class={`timeline-entry timeline-${e.kind}`}
            data-testid="timeline-entry"
            data-kind={e.kind}
            data-outcome={e.kind === "opened" ? opening.outcome : undefined}
          >
            <time class="timeline-time">{formatSiteTime(e.time, zone, i18n.locale)}</time>
            <span class="timeline-what">{what(e)}</span>
            {e.kind === "commented" && e.text ? <q class="timeline-comment">{e.text}</q> : null}
            {e.kind === "notified" && e.notification && e.notification.state !== "sent" && e.notification.reasonCode ? (
              <span class="muted timeline-reason" data-testid="timeline-reason" data-code={e.notification.reasonCode}>
                {deliveryReason(i18n, e.notification.reasonCode, e.notification.reasonStatus)}
              </span>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * An alert's active mute (cxwatch's addition): until when, by whom, on the test case or the
 * whole group; read-write accounts may extend it by an hour or end it (unmute).
 */
export function ActiveMuteNote(props: { id: number; mute: ActiveMute; writable: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const mute = useMuteAlert();
  const unmute = useUnmuteAlert();
  const m = props.mute;
  const until = formatSiteTime(m.until, zone, i18n.locale).slice(0, 16);
  const by = m.by;
  return (
    <p class="active-mute" data-testid="alert-mute" data-target={m.target} data-window-id={m.windowId}>
      <span data-testid="alert-mute-text">
        {m.target === "group"
          ? t`The whole group is muted until ${until} (by ${by}).`
          : t`This test case is muted until ${until} (by ${by}).`}
      </span>
      {props.writable ? (
        <>
          {" "}
          <button
            type="button"
            class="button secondary"
            data-testid="mute-extend"
            disabled={mute.isPending}
            onClick={() =>
              mute.mutate(
                { id: props.id, until: extendedUntil(m.until, new Date()).toISOString(), target: m.target },
                {
                  onSuccess: (r) => {
                    const end = formatSiteTime(r.until, zone, i18n.locale).slice(0, 16);
                    showSuccess(t`Mute extended until ${end}.`);
                  },
                },
              )
            }
          >
            {t`Extend by 1 h`}
          </button>{" "}
          <button
            type="button"
            class="button secondary"
            data-testid="mute-end"
            disabled={unmute.isPending}
            onClick={() =>
              unmute.mutate({ id: props.id, windowId: m.windowId }, { onSuccess: () => showSuccess(t`Unmuted.`) })
            }
          >
            {t`Unmute`}
          </button>
        </>
      ) : null}
    </p>
  );
}

/**
 * 'Mute for 1 h / 4 h / until tomorrow 08:00' of the event's test case or, on cxwatch's API,
 * its whole group: an ad-hoc maintenance window. Muting what a live mute covers already extends
 * it (the server's rule), so pressing twice never makes a second window.
 */
export function MuteButtons(props: { id: number; groupName?: string; groupMute?: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const mute = useMuteAlert();
  const [target, setTarget] = useState<MuteTarget>("testCase");
  const label = (c: MuteChoice) =>
    c === "1h" ? t`Mute for 1 h` : c === "4h" ? t`Mute for 4 h` : t`Mute until tomorrow 08:00`;
  const group = props.groupName ?? "";
  return (
    <fieldset class="mute-choices" data-testid="mute-choices">
      <legend class="visually-hidden">{t`Mute this alert's test case`}</legend>
      {props.groupMute ? (
        <span class="mute-target" role="radiogroup" aria-label={t`What to mute`}>
          <label>
            <input
              type="radio"
              name={`mute-target-${props.id}`}
              checked={target === "testCase"}
              data-testid="mute-target-case"
              onChange={() => setTarget("testCase")}
            />{" "}
            {t`This test case`}
          </label>
          <label>
            <input
              type="radio"
              name={`mute-target-${props.id}`}
              checked={target === "group"}
              data-testid="mute-target-group"
              onChange={() => setTarget("group")}
            />{" "}
            {t`The whole group ${group}`}
          </label>
        </span>
      ) : null}
      {MUTE_CHOICES.map((c) => (
        <button
          key={c}
          type="button"
          class="button secondary"
          data-testid={`mute-${c}`}
          disabled={mute.isPending}
          onClick={() =>
            mute.mutate(
              {
                id: props.id,
                until: muteUntil(c, new Date(), zone).toISOString(),
                target: props.groupMute ? target : undefined,
              },
              {
                onSuccess: (m) => {
                  const until = formatSiteTime(m.until, zone, i18n.locale).slice(0, 16);
                  showSuccess(
                    m.extended
                      ? t`Mute extended until ${until}.`
                      : target === "group" && props.groupMute
                        ? t`Muted until ${until}: no alert opens or notifies for this group meanwhile.`
                        : t`Muted until ${until}: no alert opens or notifies for this test case meanwhile.`,
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
  );
}
