// Auto tickets (/report/setting/autojiratickets/{alertSettingId}, spec §2 'Auto tickets list'):
// the Jira tickets the alert engine opened for one alert setting, newest first, paged by the
// server. Each run id leads to its run; a ticket opens the ticket dialog in edit mode, whose save
// also keeps the alert's description (PUT autojiraticket/{id}). Above the list, the tickets the
// engine could not open yet, each with Jira's reason.
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { useAutoTickets, useJiraConfig } from "../../api/queries/jira";
import type { AutoTicket } from "../../api/types";
import type { Column } from "../../components/DataTable";
import { canWrite, session } from "../../lib/session";
import { formatSiteTime } from "../../lib/siteTime";
import { useStore } from "../../lib/store";
import { useSiteTimeZone } from "../../lib/tenant";
import { runPath } from "../Drill/links";
import { ListScreen, useListScreen } from "../shared/ListScreen";
import { type PagingParams, pagingOf } from "../shared/listParams";
import { TicketDialog, type TicketTarget } from "../Tickets/TicketDialog";
import { WaitingTickets } from "./WaitingTickets";
import "./AlertSettings.css";

type TicketsParams = PagingParams & { settingId: number };

/** One page of the setting's tickets. */
function useTickets(p: TicketsParams) {
  return useAutoTickets(p.settingId, p.pageNo, p.pageSize);
}

export function AutoTicketsPage() {
  const { t, i18n } = useLingui();
  const params = useParams<{ alertSettingId: string }>();
  const settingId = Number(params.alertSettingId);
  const list = useListScreen({
    parse: (search): TicketsParams => ({ ...pagingOf(new URLSearchParams(search)), settingId }),
    useList: useTickets,
    name: (a) => a.jiraTicket,
  });
  const zone = useSiteTimeZone();
  const me = useStore(session);
  const jira = useJiraConfig();
  const editable = canWrite(me) && !!jira.data?.configured;
  const [editing, setEditing] = useState<TicketTarget | null>(null);

  const columns: Column<AutoTicket>[] = [
    { key: "alertSettingId", label: t`Alert Setting`, render: (a) => a.alertSettingId },
    { key: "testcaseId", label: t`Test Case ID`, render: (a) => a.testcaseId },
    {
      key: "jiraTicket",
      label: t`Jira Ticket`,
      render: (a) => {
        const key = a.jiraTicket;
        return editable ? (
          <button
            type="button"
            class="button link"
            data-testid="auto-ticket-key"
            aria-label={t`Edit ticket ${key}`}
            onClick={() => setEditing({ ticket: key, autoTicketId: a.id, name: key })}
          >
            {key}
          </button>
        ) : (
          key
        );
      },
    },
    {
      key: "runIds",
      label: t`Test Runs`,
      render: (a) => (
        <span class="auto-ticket-runs">
          {a.runIds
            .split(",")
            .filter(Boolean)
            .map((id, i) => (
              <span key={id}>
                {i > 0 ? ", " : null}
                <Link href={runPath(Number(id))} data-testid="auto-ticket-run">
                  {id}
                </Link>
              </span>
            ))}
        </span>
      ),
    },
    { key: "alertTime", label: t`Alert Time`, render: (a) => formatSiteTime(a.alertTime, zone, i18n.locale) },
  ];

  return (
    <ListScreen
      list={list}
      testId="auto-tickets"
      title={t`Auto Tickets`}
      intro={
        <>
          <p class="page-subtitle">
            <Link href={`/report/setting/${settingId}`}>{t`Alert setting ${settingId}`}</Link>
          </p>
          <WaitingTickets settingId={settingId} />
        </>
      }
      toolbar={null}
      tableTestId="auto-tickets-table"
      columns={columns}
    >
      <TicketDialog open={!!editing} target={editing} username={me?.username ?? ""} onClose={() => setEditing(null)} />
    </ListScreen>
  );
}
