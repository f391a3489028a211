// The outbound channels: e-mail, the SMS and voice gateways, webhooks, Jira and single sign-on,
// each configured or not (and the key that turns it on), where it goes (never a secret), what
// became of its latest message, and a test (read-write administrators).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { ApiError } from "../../api";
import { useSiteChannels, useTestChannel } from "../../api/queries/site";
import type { SiteChannel, SiteChannelKind } from "../../api/types";
import { TextField } from "../../components/Field";
import { Modal } from "../../components/Modal";
import { deliveryReason } from "../../lib/deliveryReason";
import { session } from "../../lib/session";
import { formatSiteTime } from "../../lib/siteTime";
import { useStore } from "../../lib/store";
import { useSiteTimeZone } from "../../lib/tenant";
import { CHANNEL_LABELS, labelOf } from "./labels";

/** The channels a test goes to an address of (the others test their server). */
const ADDRESSED: SiteChannelKind[] = ["email", "sms", "voice", "webhook"];

export function Channels({ writable }: { writable: boolean }) {
  const { t } = useLingui();
  const q = useSiteChannels();
  const [testing, setTesting] = useState<SiteChannel>();
  return (
    <section class="site-card" aria-labelledby="site-channels-title" data-testid="site-channels">
      <h2 id="site-channels-title" class="site-card-title">
        {t`Outbound channels`}
      </h2>
      <p class="page-intro">{t`Set in the configuration file; secrets are never shown here.`}</p>
      {q.error ? <p class="error-text">{q.error.message}</p> : null}
      <ul class="site-channels">
        {(q.data ?? []).map((c) => (
          <ChannelCard key={c.channel} c={c} writable={writable} onTest={() => setTesting(c)} />
        ))}
      </ul>
      {testing ? <TestDialog channel={testing} onClose={() => setTesting(undefined)} /> : null}
    </section>
  );
}

function ChannelCard({ c, writable, onTest }: { c: SiteChannel; writable: boolean; onTest: () => void }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const name = labelOf(CHANNEL_LABELS, c.channel, (m) => i18n._(m));
  const last = c.last;
  const when = last ? formatSiteTime(last.time, zone, i18n.locale) : "";
  return (
    <li class="site-channel" data-testid={`channel-${c.channel}`} data-configured={c.configured ? "true" : "false"}>
      <div class="site-channel-head">
        <h3 class="site-channel-name">{name}</h3>
        <span class={c.configured ? "site-badge on" : "site-badge off"}>
          {c.configured ? t`Configured` : t`Not configured`}
        </span>
      </div>
      {c.summary ? <p class="site-channel-summary">{c.summary}</p> : null}
      {c.configured ? null : (
        <p class="site-channel-hint">
          {t`Turn it on with`} <code>{c.setting}</code>
        </p>
      )}
      {/* Single sign-on sends nothing: it has no last outcome. */}
      {c.channel === "sso" ? null : (
        <p class="site-channel-last" data-testid="channel-last">
          {!last
            ? c.channel === "jira"
              ? t`No ticket job yet.`
              : t`Nothing sent yet.`
            : last.state === "sent"
              ? t`Last: delivered, ${when}.`
              : last.state === "queued"
                ? t`Last: failed, ${when}; it will be tried again.`
                : t`Last: failed, ${when}.`}
          {last && (last.reasonCode || last.reason) ? (
            <span class="site-channel-reason" data-testid="channel-reason" data-code={last.reasonCode ?? ""}>
              {" "}
              {deliveryReason(i18n, last.reasonCode, last.reasonStatus) ?? ""}
              {/* The server's English detail names the configuration key to fix: shown on an
                  English console, or where no code says it in the reader's language. */}
              {last.reason && (i18n.locale === "en" || !last.reasonCode) ? (
                <span class="site-channel-detail muted" lang="en">
                  {" "}
                  ({last.reason})
                </span>
              ) : null}
            </span>
          ) : null}
        </p>
      )}
      {writable ? (
        <button
          type="button"
          class="button secondary"
          onClick={onTest}
          aria-label={t`Test ${name}`}
          data-testid="channel-test"
        >
          {t`Test`}
        </button>
      ) : null}
    </li>
  );
}

function TestDialog({ channel, onClose }: { channel: SiteChannel; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const me = useStore(session)?.username ?? "";
  const addressed = ADDRESSED.includes(channel.channel);
  const [to, setTo] = useState(channel.channel === "email" ? me : "");
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const test = useTestChannel();
  const name = labelOf(CHANNEL_LABELS, channel.channel, (m) => i18n._(m));

  const okText = (): string => {
    switch (channel.channel) {
      case "email":
        return t`The mail server took the test e-mail to ${to.trim()}.`;
      case "sms":
        return t`The gateway took the test SMS to ${to.trim()}.`;
      case "voice":
        return t`The gateway took the test call to ${to.trim()}.`;
      case "webhook":
        return t`The receiver took the test message.`;
      case "jira":
        return t`Jira answered with the console's account.`;
      default:
        return t`The identity provider answered with its keys.`;
    }
  };

  const send = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setResult(undefined);
    try {
      await test.mutateAsync({ channel: channel.channel, to: addressed ? to.trim() : undefined });
      setResult({ ok: true, text: okText() });
    } catch (err) {
      if (!(err instanceof ApiError)) {
        setResult({ ok: false, text: String(err) });
        return;
      }
      const field = err.fields.find((f) => f.field === "to");
      if (field) {
        setError(
          field.rule === "required"
            ? t`This field is required.`
            : channel.channel === "email"
              ? t`Enter a valid e-mail address.`
              : channel.channel === "webhook"
                ? t`Enter a valid https address.`
                : t`Enter a number in international form, e.g. +15145550100.`,
        );
      } else if (err.code === "NOT_CONFIGURED") {
        setResult({ ok: false, text: t`${name} is not configured: set ${channel.setting} in the configuration file.` });
      } else if (err.code === "BAD_GATEWAY") {
        // The reason in the reader's language when the server gave its code; the English
        // detail after it (it names the configuration key to fix).
        const said = deliveryReason(i18n, err.reason?.code, err.reason?.status);
        const detail = err.serverMessages.join(" ");
        setResult({
          ok: false,
          text: !said
            ? t`The test failed: ${detail}`
            : i18n.locale === "en"
              ? t`The test failed: ${said} (${detail})`
              : t`The test failed: ${said}`,
        });
      } else {
        setResult({ ok: false, text: err.messages.join(" ") });
      }
    }
  };

  const label =
    channel.channel === "email"
      ? t`E-mail address`
      : channel.channel === "webhook"
        ? t`Webhook address`
        : t`Phone number`;
  return (
    <Modal open onClose={onClose} title={t`Test ${name}`} size="small" testId="channel-test-dialog">
      <form onSubmit={send} noValidate>
        {addressed ? (
          <TextField
            id="channel-test-to"
            label={label}
            required
            type={channel.channel === "email" ? "email" : channel.channel === "webhook" ? "url" : "tel"}
            value={to}
            onValue={setTo}
            error={error}
            testId="channel-test-to"
          />
        ) : (
          <p>
            {channel.channel === "jira"
              ? t`Asks Jira for its projects with the console's account.`
              : t`Fetches the identity provider's discovery document and keys.`}
          </p>
        )}
        {result ? (
          <p
            class={result.ok ? "site-result ok" : "site-result failed"}
            role="status"
            data-testid="channel-test-result"
          >
            {result.text}
          </p>
        ) : null}
        <div class="form-actions">
          <button type="button" class="button secondary" onClick={onClose} data-testid="channel-test-close">
            {t`Close`}
          </button>
          <button type="submit" class="button primary" disabled={test.isPending} data-testid="channel-test-send">
            {addressed ? t`Send test` : t`Test`}
          </button>
        </div>
      </form>
    </Modal>
  );
}
