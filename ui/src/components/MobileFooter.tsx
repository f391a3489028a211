// The phone footer menu: dashboard, alerts, alert settings, own user page, home.
import { useLingui } from "@lingui/react/macro";
import { Link, useLocation } from "wouter";
import { footerNav, isActive } from "../lib/nav";
import { session } from "../lib/session";
import { useStore } from "../lib/store";
import { NavIcon } from "./NavIcon";

export function MobileFooter() {
  const { t, i18n } = useLingui();
  const user = useStore(session);
  const [location] = useLocation();
  return (
    <nav class="mobile-footer" aria-label={t`Quick menu`} data-testid="mobile-footer">
      {footerNav(user).map((l) => {
        const active = l.href !== "/" && isActive(l.href, location);
        return (
          <Link key={l.key} href={l.href} class={active ? "active" : ""} aria-current={active ? "page" : undefined}>
            <NavIcon name={l.icon} size={22} />
            <span>{i18n._(l.label)}</span>
          </Link>
        );
      })}
    </nav>
  );
}
