// The browser tab's title: the page's name, then the product ('Alertes – cxwatch'), so a row of
// tabs says which is which in the reader's language. The route table names each page
// (app/routes.tsx); the dashboard puts its worst state before its name.
import { useEffect } from "react";

export const PRODUCT = "cxwatch";

/** 'Alerts – cxwatch'; the product alone for an empty name. */
export function tabTitle(page: string): string {
  const name = page.trim();
  return name ? `${name} – ${PRODUCT}` : PRODUCT;
}

/** Sets the tab's title to `tabTitle(page)` while mounted and whenever `page` changes. */
export function useTabTitle(page: string): void {
  useEffect(() => {
    document.title = tabTitle(page);
  }, [page]);
}
