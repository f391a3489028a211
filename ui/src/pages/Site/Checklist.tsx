// The first-run checklist: what a fresh install needs before the dashboard shows anything, each
// ticked from the server's counts and linking to where it is done.
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { useSiteChecklist } from "../../api/queries/site";
import { CheckCircleIcon } from "../../components/icons";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { checklistItems, doneCount, nextItem } from "./checklist";

export function Checklist() {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const q = useSiteChecklist();
  if (!q.data) return null;
  const items = checklistItems(q.data);
  const done = doneCount(items);
  const next = nextItem(items);
  const lastRun = q.data.lastRunTime;
  return (
    <section class="site-card site-checklist" aria-labelledby="site-checklist-title" data-testid="site-checklist">
      <h2 id="site-checklist-title" class="site-card-title">
        {t`First steps`}
        <span class="site-count" data-testid="checklist-count">
          {t`${done} of ${items.length} done`}
        </span>
      </h2>
      {next ? null : <p class="site-all-done">{t`This site is set up: every step is done.`}</p>}
      <ol class="checklist">
        {items.map((item) => {
          const label = i18n._(item.label);
          const body = (
            <>
              <span class="checklist-label">{label}</span>
              {item.done ? null : <span class="checklist-hint">{i18n._(item.hint)}</span>}
              {item.key === "run" && lastRun ? (
                <span class="checklist-hint">{t`Newest run: ${formatSiteTime(lastRun, zone, i18n.locale)}`}</span>
              ) : null}
            </>
          );
          return (
            <li
              key={item.key}
              class={item.done ? "checklist-item done" : item === next ? "checklist-item next" : "checklist-item"}
              data-testid={`checklist-${item.key}`}
              data-done={item.done ? "true" : "false"}
            >
              <span class="checklist-mark" aria-hidden="true">
                {item.done ? <CheckCircleIcon size={20} /> : <span class="checklist-dot" />}
              </span>
              <span class="visually-hidden">{item.done ? t`Done:` : t`To do:`}</span>
              {item.href.startsWith("#") ? (
                <a class="checklist-link" href={item.href}>
                  {body}
                </a>
              ) : (
                <Link class="checklist-link" href={item.href}>
                  {body}
                </Link>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
