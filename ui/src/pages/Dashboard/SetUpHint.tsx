// Above an empty dashboard, for an administrator of a site not set up yet (cxwatch's API: no run
// received, or no group to show them in): how far the first-run checklist has come and a link to
// the site page, rather than 'No Data' alone. A dashboard emptied by a filter
// says nothing more.
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { useHasSite, useSiteChecklist } from "../../api/queries/site";
import { ROUTES } from "../../lib/nav";
import { isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { checklistItems, doneCount, needsSetUp } from "../Site/checklist";

export function SetUpHint() {
  const { t } = useLingui();
  const admin = !isRestricted(useStore(session));
  const has = useHasSite();
  const q = useSiteChecklist(admin);
  if (!admin || !has || !q.data) return null;
  if (!needsSetUp(q.data)) return null;
  const items = checklistItems(q.data);
  const done = doneCount(items);
  return (
    <p class="set-up-hint" data-testid="set-up-hint">
      {t`This site is not set up yet: ${done} of ${items.length} first steps done.`}{" "}
      <Link href={ROUTES.site} data-testid="set-up-link">
        {t`Open the site page`}
      </Link>
    </p>
  );
}
