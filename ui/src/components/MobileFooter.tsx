// The phone footer menu: dashboard, alerts, alert settings, own user page, home.
import { useLingui } from "@lingui/react/macro";
import { Link, useLocation } from "wouter";
import { navBadges } from "../lib/badges";
import { footerNav, isActive } from "../lib/nav";
import { session } from "../lib/session";
import { useStore } from "../lib/store";
import { NavBadge } from "./NavBadge";
import { NavIcon } from "./NavIcon";

export function MobileFooter() {
  const { t, i18n } = useLingui();
  const user = useStore(session);
  const [location] = useLocation();
  const badges = useStore(navBadges);
  return (
    <nav class="mobile-footer" aria-label={t`Quick menu`} data-testid="mobile-footer">
      {footerNav(user).map((l) => {
        const active = l.href !== "/" && isActive(l.href, location);
        return (
          <Link key={l.key} href={l.href} class={active ? "active" : ""} aria-current={active ? "page" : undefined}>
            <NavIcon name={l.icon} size={22} />
            <span>{i18n._(l.label)}</span>
            <NavBadge count={badges[l.key]} />
          </Link>
        );
      })}
    </nav>
  );
}
