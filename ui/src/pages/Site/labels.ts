// The words of the site page for what the server names by code: the audit log's kinds and
// actions, the outbound channels. An unknown code shows as it is. Pure.
import type { MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";

export const KIND_LABELS: Record<string, MessageDescriptor> = {
  alert_event: msg`Alert`,
  alert_setting: msg`Alert setting`,
  api_key: msg`API key`,
  distribution_list: msg`Distribution list`,
  group: msg`Test case group`,
  maintenance_window: msg`Maintenance window`,
  report: msg`Report`,
  report_schedule: msg`Report schedule`,
  session: msg`Session`,
  user: msg`User`,
};

export const ACTION_LABELS: Record<string, MessageDescriptor> = {
  create: msg`Created`,
  update: msg`Updated`,
  delete: msg`Deleted`,
  acknowledge: msg`Acknowledged`,
  comment: msg`Commented`,
  end: msg`Ended`,
  ticket: msg`Ticket opened`,
  password: msg`Password changed`,
  profile: msg`Profile changed`,
  sign_in: msg`Signed in`,
  sign_in_link: msg`Sign-in link made`,
  sign_out: msg`Signed out`,
};

export const CHANNEL_LABELS: Record<string, MessageDescriptor> = {
  email: msg`E-mail (SMTP)`,
  sms: msg`SMS gateway`,
  voice: msg`Voice gateway`,
  webhook: msg`Webhooks and chat`,
  jira: msg`Jira`,
  sso: msg`Single sign-on`,
};

/** The label of a code in `labels`, through `say` (Lingui's `i18n._`), or the code itself. */
export function labelOf(
  labels: Record<string, MessageDescriptor>,
  code: string,
  say: (m: MessageDescriptor) => string,
) {
  const m = labels[code];
  return m ? say(m) : code;
}
