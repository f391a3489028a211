// The global success and error banners (they hide themselves after 6 s).
import { useLingui } from "@lingui/react/macro";
import { banners, dismiss } from "../lib/banners";
import { useStore } from "../lib/store";
import { CheckCircleIcon, CloseIcon, ErrorIcon } from "./icons";

export function Banners() {
  const list = useStore(banners);
  const { t } = useLingui();
  return (
    <div class="banners" aria-live="polite">
      {list.map((b) => (
        <div
          key={b.id}
          class={`banner banner-${b.kind}`}
          role={b.kind === "error" ? "alert" : "status"}
          data-testid={`banner-${b.kind}`}
        >
          {b.kind === "error" ? <ErrorIcon /> : <CheckCircleIcon />}
          <div class="banner-text">
            {b.messages.map((m, i) => (
              <p key={i}>{m}</p>
            ))}
          </div>
          <button type="button" class="icon-button" onClick={() => dismiss(b.id)} aria-label={t`Close`}>
            <CloseIcon size={16} />
          </button>
        </div>
      ))}
    </div>
  );
}
