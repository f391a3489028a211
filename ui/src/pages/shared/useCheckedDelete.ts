// A list's delete that asks first what would go with each item, or what keeps it (cxwatch's
// `…/dependents`): when something would, the screen names it in a dialog of its own, and
// deleting it too is a choice of its own (`?cascade=true`, where the server offers one; else
// the items in use are taken out of the selection); otherwise the usual 'cannot be undone'
// follows. A vendor's API has no such call: the delete is confirmed as before.
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { ApiError } from "../../api";
import { deleteOneByOne } from "../../components/deleteSelected";
import { showError, showSuccess } from "../../lib/banners";
import { queryClient } from "../../lib/queryClient";
import { useApiFlavor } from "../../lib/tenant";
import type { ListParams, ListState } from "./ListScreen";

export interface InUse<Uses> {
  id: number;
  name: string;
  uses: Uses;
}

export function useCheckedDelete<P extends ListParams, Row, Uses>(o: {
  list: ListState<P, Row>;
  /** What deleting item `id` would take (asked quietly). */
  dependents: (id: number) => Promise<Uses>;
  /** Whether anything would go with it. */
  inUse: (uses: Uses) => boolean;
  /** Deletes item `id` with what uses it; true on success. Without it, an item in use is not deleted. */
  deleteWith?: (id: number) => Promise<boolean>;
  /** The banner when an item could not be deleted for another reason than the server's answer. */
  failed: string;
}) {
  const { t } = useLingui();
  const cxwatch = useApiFlavor() === "cxwatch";
  const [asked, setAsked] = useState<{ items: InUse<Uses>[]; ids: number[]; free: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const { list } = o;
  const del = list.del;

  const checkThenAsk = async (single?: Row) => {
    if (!del) return;
    const ids = single ? [list.rowId(single)] : del.selected;
    if (cxwatch && ids.length) {
      let answers: { id: number; uses: Uses }[] = [];
      try {
        answers = await Promise.all(ids.map(async (id) => ({ id, uses: await o.dependents(id) })));
      } catch {
        // Not known (gone meanwhile, a failure): the delete itself says why.
      }
      const used = answers.filter((a) => o.inUse(a.uses));
      if (used.length) {
        const named = (id: number) => {
          const row = list.rows?.find((r) => list.rowId(r) === id);
          return row ? list.name(row) : String(id);
        };
        const free = ids.filter((id) => !used.some((a) => a.id === id));
        // Nothing deletes those in use: the others stay selected for 'Delete Selected'.
        if (!o.deleteWith && !single) del.setSelected(free);
        setAsked({ items: used.map((a) => ({ ...a, name: named(a.id) })), ids, free: single ? 0 : free.length });
        return;
      }
    }
    del.ask(single);
  };

  const deleteAll = async () => {
    if (!asked || !del || !o.deleteWith) return;
    setBusy(true);
    const out = await deleteOneByOne(asked.ids, o.deleteWith);
    setBusy(false);
    setAsked(null);
    del.setSelected(del.selected.filter((id) => !out.deleted.includes(id)));
    // What went with them shows on other screens too: every query reads again.
    await queryClient.invalidateQueries();
    if (out.failed === undefined) showSuccess(t`Deleted successfully.`);
    else if (!(out.error instanceof ApiError)) showError(o.failed);
  };

  const screen: ListState<P, Row> = del
    ? { ...list, del: { ...del, ask: (single?: Row) => void checkThenAsk(single) } }
    : list;
  return {
    /** The list to hand ListScreen and RowDelete: its delete asks first. */
    screen,
    /** The items in use, while the dialog is open. */
    inUse: asked?.items ?? null,
    /** How many of the selection are not in use (left selected when nothing deletes the others). */
    free: asked?.free ?? 0,
    busy,
    cancel: () => setAsked(null),
    deleteAll: () => void deleteAll(),
  };
}
