// Users (spec §7 'Users'): the paged list, one user, save, delete and password changes.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../index";
import type { PasswordChange, User, UserPage, UserSave } from "../types";

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
  list: (p: UserListParams) => [...userKeys.lists(), p] as const,
  detail: (id: number) => [...userKeys.all, "detail", id] as const,
};

export function fetchUsers(p: UserListParams, signal?: AbortSignal): Promise<UserPage> {
  return api.get<UserPage>("users", {
    signal,
    query: {
      pageNo: p.pageNo,
      pageSize: p.pageSize,
      search: p.search || undefined,
      role: p.role,
      sort: `${p.sort.field},${p.sort.dir}`,
    },
  });
}

/** One page of users; the page shown stays while the next one loads. */
export function useUsers(p: UserListParams) {
  return useQuery({
    queryKey: userKeys.list(p),
    queryFn: ({ signal }) => fetchUsers(p, signal),
    placeholderData: keepPreviousData,
  });
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

/** Deletes one user: resolves true when the server said OK. */
export function deleteUser(id: number): Promise<boolean> {
  return api.del<boolean>(`users/${id}`).then((ok) => ok === true);
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
