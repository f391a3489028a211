// The distribution lists' columns (spec §2 'Distribution Lists'): label, labels, type,
// email/number, last modified. A list's rows show one under the other in each cell.
import { useLingui } from "@lingui/react/macro";
import type { Distribution } from "../../api/types";
import type { Column } from "../../components/DataTable";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { TYPE_NAMES } from "./rules";

const lines = (items: string[]) => (
  <span class="cell-lines">
    {items.map((s, i) => (
      <span key={i}>{s}</span>
    ))}
  </span>
);

/** A contact type's name as the list's `type` column gives it (the server's English name), shown. */
export function useContactTypeName(): (name: string) => string {
  const { t } = useLingui();
  return (s: string) => {
    const names: Record<string, string> = { Email: t`Email`, SMS: t`SMS`, Voice: t`Voice`, Webhook: t`Webhook` };
    return names[s] ?? s;
  };
}

/**
 * A contact type's name from its id (1 Email, 2 SMS, 4 Voice, 8 Webhook, then the chat
 * services by their brand names), for a notification of any channel: a Teams message is not a
 * voice call. An unknown id shows as it is.
 */
export function useContactTypeLabel(): (type: number) => string {
  const typeName = useContactTypeName();
  return (type: number) => {
    const name = TYPE_NAMES[type];
    return name ? typeName(name) : String(type);
  };
}

export function useDistributionColumns(): Column<Distribution>[] {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const typeName = useContactTypeName();
  return [
    { key: "name", label: t`Label`, sortable: true, render: (d) => d.name },
    { key: "label", label: t`Labels`, render: (d) => lines(d.label) },
    { key: "type", label: t`Type`, render: (d) => lines(d.type.map(typeName)) },
    { key: "email", label: t`Email/Number`, render: (d) => lines(d.email) },
    {
      key: "lastModifiedTime",
      label: t`Last Modified`,
      sortable: true,
      // Site time in the one format of every screen (lib/siteTime), not the browser's zone.
      render: (d) => formatSiteTime(d.lastModifiedTime, zone, i18n.locale),
    },
  ];
}
