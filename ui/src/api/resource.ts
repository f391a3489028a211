// The one read, save and delete of an item that every settings resource has (users, reports,
// alert settings, distribution lists, groups), by its two paths: the collection (`/users`, for
// a create) and the item (`/users/{id}`, for a read, an update and a delete).
import { type QueryKey, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { client } from "./index";
import type { BodyOf, DataOf, Operation, PathsWith } from "./typed";

/** An item's path: read, updated and deleted by `{id}`. */
type ItemPath = PathsWith<"get"> & PathsWith<"put"> & PathsWith<"delete">;

export interface ResourcePaths<C extends PathsWith<"post">, I extends ItemPath> {
  /** Where a new item is posted. */
  collection: C;
  /** Where one item is read, updated and deleted. */
  item: I;
  keys: { detail: (id: number) => QueryKey; lists: () => QueryKey };
  /** What a save refreshes besides the item itself (default: the lists). */
  invalidates?: QueryKey;
}

/** The item a resource's read answers. */
export type ItemOf<I extends ItemPath> = DataOf<Operation<I, "get">>;
/** What a save of the resource sends (the create's body; an update adds the id). */
export type SaveOf<C extends PathsWith<"post">> = BodyOf<Operation<C, "post">> & { id?: number | null };

// Inside, the paths are type parameters TypeScript cannot resolve to one operation: the calls
// are checked where the resource is declared (its paths), not here.

export function resource<C extends PathsWith<"post">, I extends ItemPath>(r: ResourcePaths<C, I>) {
  type Item = ItemOf<I> & { id: number };

  return {
    /** One item; id 0 (a new one) asks for nothing. */
    useOne(id: number) {
      return useQuery({
        queryKey: r.keys.detail(id),
        queryFn: ({ signal }) =>
          // Quiet: the page says why it could not load the item (components/AccessDenied's Refused).
          client.get(r.item as PathsWith<"get">, { path: { id }, signal, quiet: true } as never) as Promise<Item>,
        enabled: id > 0,
        staleTime: 0,
      });
    },
    /**
     * Creates (no id) or updates an item. Field failures are shown beside the fields by the form,
     * so the banner is left to other failures.
     */
    useSave() {
      const qc = useQueryClient();
      return useMutation({
        mutationFn: (body: SaveOf<C>) =>
          (body.id
            ? client.put(r.item as PathsWith<"put">, { path: { id: body.id }, body, quiet: true } as never)
            : client.post(r.collection as PathsWith<"post">, { body, quiet: true } as never)) as Promise<Item>,
        onSuccess: (item) => {
          qc.setQueryData(r.keys.detail(item.id), item);
          return qc.invalidateQueries({ queryKey: r.invalidates ?? r.keys.lists() });
        },
      });
    },
    /** Deletes one item: true when the server answered a success (status and code), whatever the value it returns. */
    remove(id: number): Promise<boolean> {
      return client.remove(r.item as PathsWith<"delete">, { path: { id } } as never);
    },
  };
}
