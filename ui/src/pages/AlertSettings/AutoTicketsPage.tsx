// Auto tickets (/report/setting/autojiratickets/{alertSettingId}, spec §2 'Auto tickets list'):
// the Jira tickets the alert engine opened for one alert setting, newest first, paged by the
// server. Each run id leads to its run; a ticket opens the ticket dialog in edit mode, whose save
// also keeps the alert's description (PUT autojiraticket/{id}).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { useAutoTickets, useJiraConfig } from "../../api/queries/jira";
import type { AutoTicket } from "../../api/types";
import { type Column, DataTable } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { pageOf, pageSizeOf } from "../../components/paging";
import { useUrlParams } from "../../components/useUrlParams";
import { canWrite, session } from "../../lib/session";
import { formatSiteTime } from "../../lib/siteTime";
import { useStore } from "../../lib/store";
import { useSiteTimeZone } from "../../lib/tenant";
import { runPath } from "../Drill/links";
import { TicketDialog, type TicketTarget } from "../Tickets/TicketDialog";

export function AutoTicketsPage() {
  const { t, i18n } = useLingui();
  const params = useParams<{ alertSettingId: string }>();
  const settingId = Number(params.alertSettingId);
  const [search, setParams] = useUrlParams();
  const q = new URLSearchParams(search);
  const page = pageOf(q.get("page"));
  const size = pageSizeOf(q.get("size"));
  const tickets = useAutoTickets(settingId, page - 1, size);
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
    <section class="page auto-tickets" data-testid="auto-tickets">
      <h1 class="page-title">{t`Auto Tickets`}</h1>
      <p class="page-subtitle">
        <Link href={`/report/setting/${settingId}`}>{t`Alert setting ${settingId}`}</Link>
      </p>
      <DataTable
        testId="auto-tickets-table"
        columns={columns}
        rows={tickets.data?.content}
        rowId={(a) => a.id}
        rowLabel={(a) => a.jiraTicket}
        loading={tickets.isFetching}
        error={tickets.isError ? (tickets.error?.message ?? t`The list could not be loaded.`) : null}
      />
      <Pager
        page={page}
        size={size}
        total={tickets.data?.totalElements ?? 0}
        onPage={(p) => setParams({ page: p })}
        onSize={(s) => setParams({ size: s, page: undefined })}
      />
      <TicketDialog open={!!editing} target={editing} username={me?.username ?? ""} onClose={() => setEditing(null)} />
    </section>
  );
}
