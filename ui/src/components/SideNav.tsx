// The side navigation (spec §2): on desktop a rail of icons that expands while the pointer
// (or the keyboard focus) is on it; on a phone a drawer opened from the top bar.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { navBadges } from "../lib/badges";
import { isActive, isGroup, sideNav } from "../lib/nav";
import { session, signOut } from "../lib/session";
import { useStore } from "../lib/store";
import { useApiFlavor } from "../lib/tenant";
import { VERSION } from "../lib/version";
import { ChevronDownIcon, CloseIcon, LogoIcon } from "./icons";
import { NavBadge } from "./NavBadge";
import { NavIcon } from "./NavIcon";

export interface SideNavProps {
  mobile: boolean;
  /** Phone drawer: whether it is open, and how to close it (Escape gives the focus back to its opener). */
  open?: boolean;
  onClose?: (how?: { restoreFocus: boolean }) => void;
}

/** The desktop rail was folded by a click and the pointer has not left it since. */
let railDismissed = false;

/** Whether a pointer event is over the element's box. */
function over(el: Element, e: MouseEvent): boolean {
  const r = el.getBoundingClientRect();
  return e.clientX >= r.left && e.clientX < r.right && e.clientY >= r.top && e.clientY < r.bottom;
}

export function SideNav({ mobile, open = false, onClose }: SideNavProps) {
  const { t, i18n } = useLingui();
  const user = useStore(session);
  const [location] = useLocation();
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const entries = sideNav(user, mobile, useApiFlavor() === "cxwatch");
  const badges = useStore(navBadges);
  const inSettings = location.startsWith("/settings/");
  const [settingsOpen, setSettingsOpen] = useState(inSettings);
  useEffect(() => {
    if (inSettings) setSettingsOpen(true);
  }, [inSettings]);

  // After a click on the rail it folds away, pointer still on it or not, until the pointer
  // (or the keyboard) comes back (the alert ids under it were out of reach).
  // Each route draws its own shell: the fold outlives the page change (a new rail under the
  // pointer would otherwise expand at the next move).
  const [dismissed, setDismissedState] = useState(railDismissed);
  const setDismissed = (v: boolean) => {
    railDismissed = v;
    setDismissedState(v);
  };
  const expanded = mobile ? open : !dismissed && (hovered || focused);
  const closeButton = useRef<HTMLButtonElement>(null);
  const aside = useRef<HTMLElement>(null);
  // The fold ends when the pointer is seen outside the rail. Not only at its 'mouseleave': a
  // rail drawn under a still pointer (the clicked link's page draws its own) is not entered in
  // the browser's eyes until the pointer moves, and leaving it then sends no 'mouseleave'; the
  // rail stayed folded at the next visit.
  const leave = () => {
    setHovered(false);
    setFocused(false);
    setDismissed(false);
  };
  useEffect(() => {
    if (mobile || !dismissed) return;
    const onMove = (e: PointerEvent) => {
      if (aside.current && !over(aside.current, e)) leave();
    };
    document.addEventListener("pointermove", onMove, { passive: true });
    return () => document.removeEventListener("pointermove", onMove);
  }, [mobile, dismissed]);
  // A layout effect: the drawer takes the focus and traps Tab before it is painted. With a
  // plain effect (run after the paint) a quick Tab after the tap on the menu button went to the
  // page behind the open drawer.
  useLayoutEffect(() => {
    if (!mobile || !open) return;
    closeButton.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        onClose?.({ restoreFocus: true });
        return;
      }
      // The open drawer keeps the focus: Tab from its last control goes to its first.
      if (e.key !== "Tab" || !aside.current) return;
      const items = Array.from(
        aside.current.querySelectorAll<HTMLElement>("a[href], button:not([disabled]), select, [tabindex='0']"),
      ).filter((el) => el.offsetParent !== null);
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      const at = document.activeElement;
      if (e.shiftKey && (at === first || !aside.current.contains(at))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (at === last || !aside.current.contains(at))) {
        e.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [mobile, open]);
  const close = () => {
    setHovered(false);
    setFocused(false);
    if (!mobile) setDismissed(true);
    onClose?.();
  };

  return (
    <aside
      ref={aside}
      class={`sidenav ${expanded ? "expanded" : "collapsed"} ${mobile ? "mobile" : "desktop"}`}
      data-testid="sidenav"
      aria-label={t`Main menu`}
      hidden={mobile && !open}
      onMouseEnter={mobile ? undefined : () => setHovered(true)}
      onMouseLeave={
        mobile
          ? undefined
          : (e: MouseEvent) => {
              // A leave while the pointer is still over the rail (the page under it changed, or
              // the rail left with its page) is not the pointer leaving.
              const el = e.currentTarget as HTMLElement;
              if (el.isConnected && !over(el, e)) leave();
            }
      }
      onKeyDown={mobile ? undefined : (e: KeyboardEvent) => e.key === "Tab" && setDismissed(false)}
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
              // (Not the fold: the clicked link's removal with its page blurs it too.)
              if (!next || !(e.currentTarget as HTMLElement).contains(next)) setFocused(false);
            }
      }
    >
      <div class="sidenav-brand">
        <LogoIcon size={26} />
        <span class="sidenav-label brand-name">cxwatch</span>
        {mobile ? (
          <button
            ref={closeButton}
            type="button"
            class="icon-button"
            onClick={() => onClose?.({ restoreFocus: true })}
            aria-label={t`Close menu`}
            data-testid="close-menu"
          >
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
