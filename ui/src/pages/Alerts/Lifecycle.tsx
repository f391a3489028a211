// The alert's life after it fires (issue 28), cxwatch's additions to the alert screens: who
// acknowledged an event and the button that does it, the comments with their form, and the
// timeline of what happened. Each shows only when the API offers it (the event has
// `acknowledgedBy`, `comments`, `timeline`): a vendor's API behind the proxy has none of them.
// Read-only accounts see them and get no button (the server refuses them too).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { ApiError } from "../../api";
import { useAcknowledgeAlert, useCommentAlert } from "../../api/queries/alerts";
import { useMuteAlert } from "../../api/queries/maintenance";
import type { AlertComment, TimelineEntry } from "../../api/types";
import { showError, showSuccess } from "../../lib/banners";
import { deliveryReason } from "../../lib/deliveryReason";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { MUTE_CHOICES, type MuteChoice, muteUntil } from "../Maintenance/rules";
import { type Acknowledgeable, canAcknowledge, channelName, notificationCause, recipientShown } from "./rules";

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
  const channel = (type: number) => channelName(type, (m) => i18n._(m));
  const state = (s: string) => (s === "sent" ? t`sent` : s === "failed" ? t`failed` : t`queued`);
  const what = (e: TimelineEntry): string => {
    const by = e.by ?? "";
    const text = e.text ?? "";
    switch (e.kind) {
      case "opened":
        return t`Opened; distribution list ${text} notified`;
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
          <li key={i} class={`timeline-entry timeline-${e.kind}`} data-testid="timeline-entry" data-kind={e.kind}>
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

/** 'Mute for 1 h / 4 h / until tomorrow 08:00': an ad-hoc maintenance window on the event's test case. */
export function MuteButtons(props: { id: number }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const mute = useMuteAlert();
  const label = (c: MuteChoice) =>
    c === "1h" ? t`Mute for 1 h` : c === "4h" ? t`Mute for 4 h` : t`Mute until tomorrow 08:00`;
  return (
    <fieldset class="mute-choices" data-testid="mute-choices">
      <legend class="visually-hidden">{t`Mute this alert's test case`}</legend>
      {MUTE_CHOICES.map((c) => (
        <button
          key={c}
          type="button"
          class="button secondary"
          data-testid={`mute-${c}`}
          disabled={mute.isPending}
          onClick={() =>
            mute.mutate(
              { id: props.id, until: muteUntil(c, new Date(), zone).toISOString() },
              {
                onSuccess: (m) => {
                  const until = formatSiteTime(m.until, zone, i18n.locale).slice(0, 16);
                  showSuccess(t`Muted until ${until}: no alert opens or notifies for this test case meanwhile.`);
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
