// Users (spec §7 'Users'): the list (a page, or the spec's array paged here), one user, save, delete and password changes.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { LocalListParams } from "../../lib/listPage";
import { client } from "../index";
import { usePagedList } from "../lists";
import { resource } from "../resource";
import type { GetQuery } from "../typed";
import type { PasswordChange, Role, User } from "../types";

/** `lastSignInTime` is cxwatch's (never signed in first when ascending). */
export type UserSortField = "id" | "firstName" | "lastName" | "username" | "lastSignInTime";

export interface UserListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  search: string;
  role?: Role;
  sort: { field: UserSortField; dir: "asc" | "desc" };
}

export const userKeys = {
  all: ["users"] as const,
  lists: () => [...userKeys.all, "list"] as const,
  detail: (id: number) => [...userKeys.all, "detail", id] as const,
};

/** cxwatch's paged call's parameters. */
export function usersQuery(p: UserListParams): GetQuery<"/users"> {
  return {
    pageNo: p.pageNo,
    pageSize: p.pageSize,
    search: p.search || undefined,
    role: p.role,
    sort: `${p.sort.field},${p.sort.dir}`,
  };
}

/** How the browser pages the spec's array of users (as the server does a page). */
export function usersLocally(p: UserListParams): LocalListParams<User> {
  return {
    pageNo: p.pageNo,
    pageSize: p.pageSize,
    search: p.search,
    searchIn: (u) => [u.firstName, u.lastName, u.username],
    filter: p.role ? (u) => Array.isArray(u.roles) && u.roles.includes(p.role as Role) : undefined,
    sort: p.sort,
  };
}

/** One page of users (a page of the server's, or of the whole list); the page shown stays while the next one loads. */
export function useUsers(p: UserListParams) {
  return usePagedList<User, "/users">({
    key: userKeys.lists(),
    path: "/users",
    paged: usersQuery(p),
    local: usersLocally(p),
  });
}

const users = resource({ collection: "/users", item: "/users/{id}", keys: userKeys });

/** One user; id 0 (a new user) asks for nothing. */
export const useUser = users.useOne;

/**
 * Creates (no id) or updates a user. Field failures are shown beside the fields by the form,
 * so the banner is left to other failures.
 */
export const useSaveUser = users.useSave;

/** Deletes one user: true when the server answered a success (status and code), whatever the value it returns. */
export const deleteUser = users.remove;

export function useDeleteUsers() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: deleteUser,
    onSettled: () => qc.invalidateQueries({ queryKey: userKeys.lists() }),
  });
}

/** A new password: `oldPassword` for your own, only `newPassword` for an admin reset. */
export function useChangePassword() {
  return useMutation({
    mutationFn: ({ id, ...body }: PasswordChange & { id: number }) =>
      client.patch("/users/{id}/overridePassword", { path: { id }, body, quiet: true }),
  });
}
