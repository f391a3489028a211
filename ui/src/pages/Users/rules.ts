// The user form's rules (spec §5 'User form', §6), pure: which fields show, what is checked,
// in which order, and what is sent.
import type { AccessType, FieldRule, GroupRef, Role, UserSave } from "../../api/types";

export const ADMIN = "ROLE_ADMIN" as const satisfies Role;
export const USER = "ROLE_USER" as const satisfies Role;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

/** The rule a field broke, as the server names it in `fields`. */
export type Rule = FieldRule;

export interface UserFormValues {
  firstName: string;
  lastName: string;
  username: string;
  /** '' until chosen. */
  role: "" | Role;
  accessType: AccessType;
  groups: GroupRef[];
  password: string;
  /** The user may open kiosk sessions (a read-only wall display, not signed out when idle). */
  kiosk: boolean;
}

export interface FormMode {
  /** A new user (id 0). */
  creating: boolean;
  /** The signed-in user is an administrator (first role not ROLE_USER). */
  admin: boolean;
  /** The form is the signed-in user's own profile. */
  own?: boolean;
  /**
   * The signed-in account is read-only (or a kiosk session): the form shows the user and
   * changes nothing; on one's own profile the password can still be changed.
   */
  readOnly?: boolean;
}

export type FieldName = keyof UserFormValues | "oldPassword" | "newPassword" | "confirmPassword";
export type Errors = Partial<Record<FieldName, Rule>>;

export const emptyForm = (): UserFormValues => ({
  firstName: "",
  lastName: "",
  username: "",
  role: "",
  accessType: "read-write",
  groups: [],
  password: "",
  kiosk: false,
});

/**
 * Permissions, access type and groups are shown to admins only; groups only for the user role.
 * A read-only account sees every field without changing it (no Save): on its own profile it
 * changes only its password. Your own password is changed with the current one (admins too);
 * an admin with read-write access resets another user's.
 */
export function visibleFields(mode: FormMode, role: UserFormValues["role"]) {
  const own = mode.own ?? !mode.admin;
  const readOnly = mode.readOnly === true;
  return {
    permissions: mode.admin,
    accessType: mode.admin,
    kiosk: mode.admin,
    groups: mode.admin && role === USER,
    password: mode.creating,
    changePassword: !mode.creating && own,
    resetPassword: !mode.creating && !own && mode.admin && !readOnly,
    readOnly,
    save: !readOnly,
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function passwordRule(p: string): Rule | undefined {
  if (!p) return "required";
  if (p.length < PASSWORD_MIN) return "tooShort";
  if (p.length > PASSWORD_MAX) return "tooLong";
  return undefined;
}

/**
 * Checked in this order: first name, last name, username (required, an e-mail address),
 * permissions (admins), password (on create). Returns every failing field; the first key is
 * the first to fix.
 */
export function validateUser(v: UserFormValues, mode: FormMode): Errors {
  const e: Errors = {};
  if (!v.firstName.trim()) e.firstName = "required";
  if (!v.lastName.trim()) e.lastName = "required";
  if (!v.username.trim()) e.username = "required";
  else if (!EMAIL.test(v.username.trim())) e.username = "invalid";
  if (mode.admin && !v.role) e.role = "required";
  if (mode.creating) {
    const p = passwordRule(v.password);
    if (p) e.password = p;
  }
  return e;
}

/** Your own password: current, new and confirm are required, and new must equal confirm. */
export function validatePasswordChange(
  v: { oldPassword: string; newPassword: string; confirmPassword: string },
  reset: boolean,
): Errors {
  const e: Errors = {};
  if (!reset && !v.oldPassword) e.oldPassword = "required";
  const p = passwordRule(v.newPassword);
  if (p) e.newPassword = p;
  if (!reset) {
    if (!v.confirmPassword) e.confirmPassword = "required";
    else if (v.confirmPassword !== v.newPassword) e.confirmPassword = "mismatch";
  }
  return e;
}

/**
 * The body sent. A non-admin saves their own profile with the default roles (spec §6); the
 * server ignores roles, access type and groups from them. Admins have all groups: none are sent.
 */
export function toSave(v: UserFormValues, mode: FormMode, current?: { roles: string[]; accessType: string }): UserSave {
  // A profile's roles and access type go back as the server sent them (a vendor's may name
  // others: the server judges them, spec §6).
  const roles = mode.admin ? [v.role || USER] : ((current?.roles ?? [USER]) as Role[]);
  const body: UserSave = {
    username: v.username.trim(),
    firstName: v.firstName.trim(),
    lastName: v.lastName.trim(),
    accessType: mode.admin ? v.accessType : ((current?.accessType ?? "read-only") as AccessType),
    roles,
    testCaseGroups: roles[0] === USER ? v.groups.map((g) => ({ id: g.id, name: g.name })) : [],
  };
  if (mode.creating) body.password = v.password;
  // Only administrators allow kiosk sessions; a profile save leaves the flag as it is.
  if (mode.admin) body.kiosk = v.kiosk;
  return body;
}

/** The form's values from a user the server sent. */
export function fromUser(u: {
  firstName: string;
  lastName: string;
  username: string;
  roles: string[];
  accessType: string;
  testCaseGroups: GroupRef[];
  kiosk?: boolean;
}): UserFormValues {
  const role = u.roles[0] === ADMIN ? ADMIN : u.roles[0] === USER ? USER : "";
  return {
    firstName: u.firstName,
    lastName: u.lastName,
    username: u.username,
    role,
    accessType: u.accessType === "read-write" ? "read-write" : "read-only",
    groups: u.testCaseGroups,
    password: "",
    kiosk: u.kiosk === true,
  };
}

/** What the list shows in 'Test Case Groups': 'All' for admins, else the count. */
export function groupsCell(u: { roles: string[]; testCaseGroups: unknown[] }): "all" | number {
  return u.roles[0] === USER ? u.testCaseGroups.length : "all";
}

/** What an administrator's save of their own profile gives up, when it gives up anything. */
export interface SelfDemotion {
  /** Administrator → User: no more settings and users, only the groups given. */
  role: boolean;
  /** Read and write → read only. */
  access: boolean;
  /** Made a User with no test case group: they will see no data at all. */
  noGroups: boolean;
}

/**
 * Whether saving `v` over `current` takes rights from the signed-in administrator on their own
 * profile: asked first, and the session ends (the server ends every session
 * of a user whose role or access changes), so the console signs in again with the new rights.
 */
export function selfDemotion(
  v: UserFormValues,
  mode: FormMode,
  current: { roles: string[]; accessType: string } | undefined,
): SelfDemotion | null {
  if (!mode.own || !mode.admin || mode.readOnly || mode.creating || !current) return null;
  const role = current.roles[0] === ADMIN && v.role === USER;
  const access = current.accessType === "read-write" && v.accessType === "read-only";
  return role || access ? { role, access, noGroups: role && v.groups.length === 0 } : null;
}
