// Maintenance windows (/settings/maintenance; cxwatch's addition): the windows of the
// caller's groups, newest first, with what each covers, when, its state (active, scheduled,
// ended) and how many runs it marked; New, Edit, and End now for a window not ended (read-write
// accounts). Under a vendor's API (flavour "spec") there are none: the screen says so.
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { useEndWindow, useHasMaintenance, useMaintenanceWindows } from "../../api/queries/maintenance";
import type { MaintenanceWindow } from "../../api/types";
import type { Column } from "../../components/DataTable";
import { showSuccess } from "../../lib/banners";
import { canWrite, session } from "../../lib/session";
import { formatSiteTime } from "../../lib/siteTime";
import { useStore } from "../../lib/store";
import { useSiteTimeZone } from "../../lib/tenant";
import { ListScreen, useListScreen } from "../shared/ListScreen";
import { pagingOf } from "../shared/listParams";
import { useWindowReason, WindowState, WindowWhen } from "./parts";
import { covers, windowPath } from "./rules";
import "./Maintenance.css";

export const MAINTENANCE_PATH = "/settings/maintenance";

function paramsOf(search: string) {
  return pagingOf(new URLSearchParams(search));
}

function useColumns(): Column<MaintenanceWindow>[] {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const reasonOf = useWindowReason();
  return [
    { key: "reason", label: t`Reason`, render: (w) => reasonOf(w) },
    { key: "covers", label: t`Covers`, render: (w) => covers(w) },
    { key: "when", label: t`When`, render: (w) => <WindowWhen w={w} /> },
    { key: "state", label: t`State`, render: (w) => <WindowState w={w} /> },
    { key: "runCount", label: t`Runs marked`, render: (w) => i18n.number(w.runCount) },
    {
      key: "createdBy",
      label: t`Created by`,
      render: (w) => `${w.createdBy} · ${formatSiteTime(w.createdTime, zone, i18n.locale)}`,
    },
  ];
}

export function MaintenanceListPage() {
  const { t } = useLingui();
  const has = useHasMaintenance();
  const writable = canWrite(useStore(session));
  const columns = useColumns();
  const end = useEndWindow();
  const reasonOf = useWindowReason();
  const list = useListScreen({
    parse: paramsOf,
    useList: useMaintenanceWindows,
    name: (w: MaintenanceWindow) => reasonOf(w),
  });
  if (!has) {
    return (
      <section class="page maintenance-list" data-testid="maintenance-list">
        <h1 class="page-title">{t`Maintenance Windows`}</h1>
        <p>{t`This console's API has no maintenance windows.`}</p>
      </section>
    );
  }
  return (
    <ListScreen
      list={list}
      testId="maintenance-list"
      title={t`Maintenance Windows`}
      intro={
        <p class="page-intro">
          {t`During a window no alert opens or notifies for what it covers; its runs are stored and shown as maintenance, and left out of pass rates.`}
        </p>
      }
      toolbar={
        writable ? (
          <div class="list-toolbar">
            <span class="spacer" />
            <Link href={windowPath(0)} class="button primary" data-testid="new-window">
              {t`New`}
            </Link>
          </div>
        ) : null
      }
      tableTestId="maintenance-table"
      columns={columns}
      actions={(w) => {
        const reason = reasonOf(w);
        const open = writable && w.state !== "ended" ? t`Edit` : t`View`;
        const endNow = t`End now`;
        return (
          <>
            <Link
              href={windowPath(w.id)}
              class="button link"
              aria-label={`${open} – ${reason}`}
              data-testid="edit-window"
            >
              {open}
            </Link>
            {writable && w.state !== "ended" ? (
              <button
                type="button"
                class="button link"
                data-testid="end-window"
                aria-label={`${endNow} – ${reason}`}
                disabled={end.isPending}
                onClick={() => end.mutate(w.id, { onSuccess: () => showSuccess(t`The window ${reason} has ended.`) })}
              >
                {t`End now`}
              </button>
            ) : null}
          </>
        );
      }}
      phoneSummary={(w) => (
        <>
          <WindowState w={w} />
          <WindowWhen w={w} />
        </>
      )}
    />
  );
}
