// The side navigation (spec §2): on desktop a rail of icons that expands while the pointer
// (or the keyboard focus) is on it; on a phone a drawer opened from the top bar.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { navBadges } from "../lib/badges";
import { isActive, isGroup, sideNav } from "../lib/nav";
import { session, signOut } from "../lib/session";
import { useStore } from "../lib/store";
import { VERSION } from "../lib/version";
import { ChevronDownIcon, CloseIcon, LogoIcon } from "./icons";
import { NavBadge } from "./NavBadge";
import { NavIcon } from "./NavIcon";

export interface SideNavProps {
  mobile: boolean;
  /** Phone drawer: whether it is open, and how to close it. */
  open?: boolean;
  onClose?: () => void;
}

export function SideNav({ mobile, open = false, onClose }: SideNavProps) {
  const { t, i18n } = useLingui();
  const user = useStore(session);
  const [location] = useLocation();
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const entries = sideNav(user, mobile);
  const badges = useStore(navBadges);
  const inSettings = location.startsWith("/settings/");
  const [settingsOpen, setSettingsOpen] = useState(inSettings);
  useEffect(() => {
    if (inSettings) setSettingsOpen(true);
  }, [inSettings]);

  const expanded = mobile ? open : hovered || focused;
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!mobile || !open) return;
    closeButton.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose?.();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [mobile, open]);
  const close = () => {
    setHovered(false);
    onClose?.();
  };

  return (
    <aside
      class={`sidenav ${expanded ? "expanded" : "collapsed"} ${mobile ? "mobile" : "desktop"}`}
      data-testid="sidenav"
      aria-label={t`Main menu`}
      hidden={mobile && !open}
      onMouseEnter={mobile ? undefined : () => setHovered(true)}
      onMouseLeave={
        mobile
          ? undefined
          : () => {
              setHovered(false);
              setFocused(false);
            }
      }
      onFocusIn={
        mobile
          ? undefined
          : (e: FocusEvent) => {
              // Keyboard users get the labels too; a mouse click keeps the spec's behaviour.
              if ((e.target as HTMLElement).matches(":focus-visible")) setFocused(true);
            }
      }
      onFocusOut={
        mobile
          ? undefined
          : (e: FocusEvent) => {
              const next = e.relatedTarget as Node | null;
              if (!next || !(e.currentTarget as HTMLElement).contains(next)) setFocused(false);
            }
      }
    >
      <div class="sidenav-brand">
        <LogoIcon size={26} />
        <span class="sidenav-label brand-name">cxwatch</span>
        {mobile ? (
          <button ref={closeButton} type="button" class="icon-button" onClick={close} aria-label={t`Close menu`}>
            <CloseIcon size={20} />
          </button>
        ) : null}
      </div>
      <nav class="sidenav-items">
        <ul>
          {entries.map((entry) =>
            isGroup(entry) ? (
              <li key={entry.key} class="nav-group">
                <button
                  type="button"
                  class={`nav-item ${inSettings ? "active-parent" : ""}`}
                  aria-expanded={settingsOpen}
                  onClick={() => setSettingsOpen(!settingsOpen)}
                  title={expanded ? undefined : i18n._(entry.label)}
                >
                  <NavIcon name={entry.icon} />
                  <span class="sidenav-label">{i18n._(entry.label)}</span>
                  <ChevronDownIcon size={16} class={`chevron ${settingsOpen ? "up" : ""}`} />
                </button>
                {settingsOpen && expanded ? (
                  <ul class="nav-sub">
                    {entry.children.map((c) => (
                      <li key={c.key}>
                        <Link
                          href={c.href}
                          class={`nav-item sub ${isActive(c.href, location) ? "active" : ""}`}
                          aria-current={isActive(c.href, location) ? "page" : undefined}
                          onClick={close}
                        >
                          <NavIcon name={c.icon} size={18} />
                          <span class="sidenav-label">{i18n._(c.label)}</span>
                        </Link>
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ) : (
              <li key={entry.key}>
                <Link
                  href={entry.href}
                  class={`nav-item ${isActive(entry.href, location) ? "active" : ""}`}
                  aria-current={isActive(entry.href, location) ? "page" : undefined}
                  title={expanded ? undefined : i18n._(entry.label)}
                  onClick={close}
                  data-testid={`nav-${entry.key}`}
                >
                  <NavIcon name={entry.icon} />
                  <span class="sidenav-label">{i18n._(entry.label)}</span>
                  <NavBadge count={badges[entry.key]} />
                </Link>
              </li>
            ),
          )}
          <li>
            <button
              type="button"
              class="nav-item"
              onClick={() => {
                close();
                signOut();
              }}
              title={expanded ? undefined : t`Sign out`}
              data-testid="sign-out"
            >
              <NavIcon name="signout" />
              <span class="sidenav-label">{t`Sign out`}</span>
            </button>
          </li>
        </ul>
      </nav>
      <div class="sidenav-version" data-testid="version">
        v{VERSION}
      </div>
    </aside>
  );
}
