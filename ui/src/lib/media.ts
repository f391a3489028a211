// Phone or desktop: the layout changes below 768 px (side menu, footer, single sign-on button).
import { useEffect, useState } from "react";

export const MOBILE_QUERY = "(max-width: 767.98px)";

export function isMobileNow(): boolean {
  return typeof matchMedia === "function" && matchMedia(MOBILE_QUERY).matches;
}

export function useIsMobile(): boolean {
  const [mobile, setMobile] = useState(isMobileNow);
  useEffect(() => {
    if (typeof matchMedia !== "function") return;
    const mq = matchMedia(MOBILE_QUERY);
    const on = () => setMobile(mq.matches);
    on();
    mq.addEventListener("change", on);
    return () => mq.removeEventListener("change", on);
  }, []);
  return mobile;
}
