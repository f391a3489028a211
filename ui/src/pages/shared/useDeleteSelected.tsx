// 'Delete Selected' and a row's own Delete on a server-paged list (spec §4), the same on every
// list screen: the selection, the confirmation naming what goes, deletion one by one
// (components/deleteSelected), the list reloaded, the banner, and a step back when the page
// the user was on no longer exists.
import { useLingui } from "@lingui/react/macro";
import type { QueryKey } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../../api";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { deleteOneByOne, idsToDelete } from "../../components/deleteSelected";
import { pageCount } from "../../components/paging";
import { showError, showSuccess } from "../../lib/banners";
import { queryClient } from "../../lib/queryClient";

export interface DeleteSelectedOptions<Row> {
  /** The rows of the page shown, and a row's id. */
  rows: Row[] | undefined;
  rowId: (row: Row) => number;
  /** Items in the whole list, page size and page (1-based) shown. */
  total: number;
  pageSize: number;
  page: number;
  /** Deletes one item; true on success (an ApiError shows its own messages). */
  deleteOne: (id: number) => Promise<boolean>;
  /** The queries to reload after a deletion. */
  listKey: QueryKey;
  /** The confirmation's words: the one row's name, or how many items. */
  describe: (one: Row | undefined, count: number) => string;
  /** The banner when an item could not be deleted for another reason than the server's answer. */
  failed: string;
  /** Goes to another page (the last one, after the page shown emptied). */
  onPage: (page: number) => void;
}

export function useDeleteSelected<Row>(o: DeleteSelectedOptions<Row>) {
  const { t } = useLingui();
  const [selected, setSelected] = useState<number[]>([]);
  const [confirm, setConfirm] = useState<{ ids: number[]; item: string } | null>(null);
  const [busy, setBusy] = useState(false);

  /** Asks before deleting the selection, or `single` (a row's own Delete). */
  const ask = (single?: Row) => {
    const ids = idsToDelete(selected, single === undefined ? undefined : o.rowId(single));
    if (!ids.length) return;
    const one = single ?? o.rows?.find((r) => o.rowId(r) === ids[0]);
    setConfirm({ ids, item: o.describe(ids.length === 1 ? one : undefined, ids.length) });
  };

  const remove = async () => {
    if (!confirm) return;
    setBusy(true);
    const out = await deleteOneByOne(confirm.ids, o.deleteOne);
    setBusy(false);
    setConfirm(null);
    setSelected((s) => s.filter((id) => !out.deleted.includes(id)));
    await queryClient.invalidateQueries({ queryKey: o.listKey });
    if (out.failed === undefined) showSuccess(t`Deleted successfully.`);
    else if (!(out.error instanceof ApiError)) showError(o.failed);
    const pages = pageCount(o.total - out.deleted.length, o.pageSize);
    if (o.page > pages) o.onPage(pages);
  };

  const dialog = (
    <ConfirmDialog
      open={!!confirm}
      item={confirm?.item ?? ""}
      busy={busy}
      onCancel={() => setConfirm(null)}
      onConfirm={() => void remove()}
    />
  );

  return { selected, setSelected, ask, dialog };
}
