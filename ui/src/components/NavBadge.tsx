// The count beside a navigation entry (how many alert events are open beside Alerts); nothing
// when there is none.
import { useLingui } from "@lingui/react/macro";

export function NavBadge({ count }: { count: number | undefined }) {
  const { t, i18n } = useLingui();
  if (!count) return null;
  const n = i18n.number(count);
  return (
    <span class="nav-badge" data-testid="nav-badge">
      <span aria-hidden="true">{n}</span>
      <span class="visually-hidden">{t`${n} open`}</span>
    </span>
  );
}
