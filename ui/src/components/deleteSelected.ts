// 'Delete Selected' (spec §4): the selected ids, or the single id when none is selected, are
// deleted one after another; the first answer without success stops the rest.

export interface DeleteOutcome<Id> {
  /** Deleted, in order. */
  deleted: Id[];
  /** The id whose deletion did not succeed, if one did not. */
  failed?: Id;
  error?: unknown;
}

/** What to delete: the selection, or the single id (a row's own delete button). */
export function idsToDelete<Id>(selected: readonly Id[], single?: Id): Id[] {
  return single !== undefined ? [single] : [...selected];
}

/**
 * Deletes `ids` one at a time with `del`, which resolves true on success. A false answer or a
 * thrown error stops the run there; what was deleted before it stays deleted.
 */
export async function deleteOneByOne<Id>(
  ids: readonly Id[],
  del: (id: Id) => Promise<boolean>,
): Promise<DeleteOutcome<Id>> {
  const deleted: Id[] = [];
  for (const id of ids) {
    try {
      if (!(await del(id))) return { deleted, failed: id };
    } catch (error) {
      return { deleted, failed: id, error };
    }
    deleted.push(id);
  }
  return { deleted };
}
