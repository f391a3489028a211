// The distribution lists' columns (spec §2 'Distribution Lists'): label, labels, type,
// email/number, last modified. A list's rows show one under the other in each cell.
import { useLingui } from "@lingui/react/macro";
import type { Distribution } from "../../api/types";
import type { Column } from "../../components/DataTable";

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

export function useDistributionColumns(): Column<Distribution>[] {
  const { t, i18n } = useLingui();
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
      render: (d) =>
        d.lastModifiedTime ? i18n.date(new Date(d.lastModifiedTime), { dateStyle: "medium", timeStyle: "short" }) : "",
    },
  ];
}
