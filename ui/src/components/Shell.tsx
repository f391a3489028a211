// The frame around every signed-in screen: side navigation, top bar, content, phone footer.
import { useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "react";
import { useLocation } from "wouter";
import { useIsMobile } from "../lib/media";
import { session } from "../lib/session";
import { useStore } from "../lib/store";
import { tenant } from "../lib/tenant";
import { LogoIcon, MenuIcon, UserIcon } from "./icons";
import { LanguageSelect } from "./LanguageSelect";
import { MobileFooter } from "./MobileFooter";
import { SideNav } from "./SideNav";

export function Shell({ children }: { children: ComponentChildren }) {
  const { t } = useLingui();
  const mobile = useIsMobile();
  const user = useStore(session);
  const { name: tenantName } = useStore(tenant);
  const [location] = useLocation();
  const [drawer, setDrawer] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  useEffect(() => setDrawer(false), [location, mobile]);

  return (
    <div class={`shell ${mobile ? "is-mobile" : "is-desktop"}`}>
      <a class="skip-link" href="#main">
        {t`Skip to content`}
      </a>
      {mobile && drawer ? (
        // The drawer closes with its own button and Escape too; the backdrop is for pointers only.
        <div class="drawer-backdrop" aria-hidden="true" onPointerDown={() => setDrawer(false)} />
      ) : null}
      <SideNav
        mobile={mobile}
        open={drawer}
        onClose={(how) => {
          setDrawer(false);
          // Closed by Escape or its button: the focus goes back to the menu button.
          if (how?.restoreFocus) setTimeout(() => menuButton.current?.focus(), 0);
        }}
      />
      <div class="shell-main">
        <header class="topbar">
          {mobile ? (
            <>
              <button
                ref={menuButton}
                type="button"
                class="icon-button"
                aria-label={t`Open menu`}
                aria-expanded={drawer}
                onClick={() => setDrawer(true)}
                data-testid="open-menu"
              >
                <MenuIcon size={22} />
              </button>
              <span class="topbar-brand">
                <LogoIcon size={22} />
                cxwatch
              </span>
            </>
          ) : (
            <span class="topbar-title">
              {t`Client Experience Monitoring`}
              {tenantName && tenantName !== "cxwatch" ? (
                <span class="tenant-name" data-testid="tenant-name">
                  {tenantName}
                </span>
              ) : null}
            </span>
          )}
          <div class="topbar-actions">
            <LanguageSelect compact={mobile} />
            {user && !mobile ? (
              <span class="user-chip" data-testid="user-chip" title={user.username}>
                <UserIcon size={18} />
                <span class="user-name">{user.username}</span>
              </span>
            ) : null}
          </div>
        </header>
        <main id="main" class="content" tabIndex={-1}>
          {children}
        </main>
      </div>
      {mobile ? <MobileFooter /> : null}
    </div>
  );
}
