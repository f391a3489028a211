// Distribution List (/settings/distribution-list/3): the contact groups, paged by the server.
// The URL holds the page, size, search, contact-type filter and sort.
import { useLingui } from "@lingui/react/macro";
import type { DistributionListParams, DistributionSortField } from "../../api/queries/distributions";
import {
  deleteDistribution,
  distributionDependents,
  distributionKeys,
  useDistributions,
} from "../../api/queries/distributions";
import { AccessDenied } from "../../components/AccessDenied";
import { canWrite, isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useApiFlavor } from "../../lib/tenant";
import { ListFilter, ListScreen, RowDelete, RowLink, useListScreen } from "../shared/ListScreen";
import { searchedListOf } from "../shared/listParams";
import { useCheckedDelete } from "../shared/useCheckedDelete";
import { useDistributionColumns } from "./columns";
import "./distributions.css";
import { DeliveryNotice } from "./DeliveryNotice";
import { InUseDialog } from "./InUseDialog";
import { CONTACT_TYPES, type ContactTypeId, EMAIL, inUse, MATTERMOST, SLACK, SMS, TEAMS, WEBHOOK } from "./rules";

const SORT_FIELDS: DistributionSortField[] = ["id", "name", "lastModifiedTime"];

/** The list's state from the URL's query string. */
export function paramsOf(search: string): DistributionListParams & { page: number } {
  const q = new URLSearchParams(search);
  const type = Number(q.get("type"));
  return {
    ...searchedListOf(q, SORT_FIELDS, { field: "lastModifiedTime", dir: "desc" }),
    type: (CONTACT_TYPES as number[]).includes(type) ? (type as ContactTypeId) : undefined,
  };
}

export function DistributionListPage() {
  const me = useStore(session);
  return isRestricted(me) ? <AccessDenied /> : <DistributionList writable={canWrite(me)} />;
}

/** Read-only administrators see the lists without New, Delete or the check boxes, and View. */
function DistributionList({ writable }: { writable: boolean }) {
  const { t } = useLingui();
  const columns = useDistributionColumns();
  const cxwatch = useApiFlavor() === "cxwatch";
  const screen = useListScreen({
    parse: paramsOf,
    useList: useDistributions,
    name: (d) => d.name,
    remove: {
      deleteOne: deleteDistribution,
      listKey: distributionKeys.lists(),
      many: (count) => t`${count} distribution lists`,
      failed: t`The distribution list could not be deleted.`,
    },
  });

  // A list in use is not deleted (409 naming what uses it): the screen says what uses it
  // instead of asking 'cannot be undone' for nothing.
  const checked = useCheckedDelete({
    list: screen,
    dependents: distributionDependents,
    inUse,
    failed: t`The distribution list could not be deleted.`,
  });
  const list = checked.screen;

  return (
    <ListScreen
      list={list}
      testId="distribution-list"
      title={t`Distribution List`}
      intro={<DeliveryNotice />}
      filters={
        <ListFilter
          list={list}
          param="type"
          value={list.p.type}
          label={t`Contact type`}
          testId="type-filter"
          options={[
            { value: "", label: t`All contact types` },
            { value: EMAIL, label: t`Email` },
            { value: SMS, label: t`SMS` },
            { value: 4, label: t`Voice` },
            ...(cxwatch
              ? [
                  { value: WEBHOOK, label: t`Webhook` },
                  { value: TEAMS, label: "Microsoft Teams" },
                  { value: SLACK, label: "Slack" },
                  { value: MATTERMOST, label: "Mattermost" },
                ]
              : []),
          ]}
        />
      }
      writable={writable}
      create={{ href: "/report/distribution/0", testId: "new-distribution" }}
      tableTestId="distributions-table"
      columns={columns}
      actions={(d) => (
        <>
          <RowLink href={`/report/distribution/${d.id}`} testId="edit-distribution" name={d.name} view={!writable} />
          {writable ? <RowDelete list={list} row={d} testId="delete-distribution" /> : null}
        </>
      )}
    >
      <InUseDialog lists={checked.inUse} free={checked.free} onClose={checked.cancel} />
    </ListScreen>
  );
}
