// Users (spec §7 'Users'): the list (a page, or the spec's array paged here), one user, save, delete and password changes.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { LocalListParams } from "../../lib/listPage";
import { api } from "../index";
import { usePagedList } from "../lists";
import type { PasswordChange, User, UserSave } from "../types";

export type UserSortField = "id" | "firstName" | "lastName" | "username";

export interface UserListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  search: string;
  role?: "ROLE_ADMIN" | "ROLE_USER";
  sort: { field: UserSortField; dir: "asc" | "desc" };
}

export const userKeys = {
  all: ["users"] as const,
  lists: () => [...userKeys.all, "list"] as const,
  detail: (id: number) => [...userKeys.all, "detail", id] as const,
};

/** cxwatch's paged call's parameters. */
export function usersQuery(p: UserListParams) {
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
    filter: p.role ? (u) => Array.isArray(u.roles) && u.roles.includes(p.role as string) : undefined,
    sort: p.sort,
  };
}

/** One page of users (a page of the server's, or of the whole list); the page shown stays while the next one loads. */
export function useUsers(p: UserListParams) {
  return usePagedList<User>({ key: userKeys.lists(), path: "users", paged: usersQuery(p), local: usersLocally(p) });
}

/** One user; id 0 (a new user) asks for nothing. */
export function useUser(id: number) {
  return useQuery({
    queryKey: userKeys.detail(id),
    queryFn: ({ signal }) => api.get<User>(`users/${id}`, { signal }),
    enabled: id > 0,
    staleTime: 0,
  });
}

/**
 * Creates (no id) or updates a user. Field failures are shown beside the fields by the form,
 * so the banner is left to other failures.
 */
export function useSaveUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: UserSave & { id?: number }) =>
      body.id
        ? api.put<User>(`users/${body.id}`, body, { quiet: true })
        : api.post<User>("users", body, { quiet: true }),
    onSuccess: (user) => {
      qc.setQueryData(userKeys.detail(user.id), user);
      return qc.invalidateQueries({ queryKey: userKeys.lists() });
    },
  });
}

/** Deletes one user: true when the server answered a success (status and code), whatever the value it returns. */
export function deleteUser(id: number): Promise<boolean> {
  return api.remove(`users/${id}`);
}

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
      api.patch<unknown>(`users/${id}/overridePassword`, body, { quiet: true }),
  });
}
