import { describe, expect, it } from "vitest";
import {
  ADMIN,
  emptyForm,
  fromUser,
  groupsCell,
  selfDemotion,
  toSave,
  USER,
  validatePasswordChange,
  validateUser,
  visibleFields,
} from "./rules";

const admin = { creating: false, admin: true };
const adminNew = { creating: true, admin: true };
const self = { creating: false, admin: false };

describe("user form rules", () => {
  it("checks first name, last name, username, permissions, password in that order", () => {
    expect(Object.keys(validateUser(emptyForm(), adminNew))).toEqual([
      "firstName",
      "lastName",
      "username",
      "role",
      "password",
    ]);
    expect(validateUser(emptyForm(), adminNew).firstName).toBe("required");
  });

  it("needs permissions only from admins, and the password only on create", () => {
    const v = { ...emptyForm(), firstName: "A", lastName: "B", username: "a@b.ca" };
    expect(validateUser(v, self)).toEqual({});
    expect(validateUser(v, admin)).toEqual({ role: "required" });
    expect(validateUser({ ...v, role: ADMIN }, admin)).toEqual({});
  });

  it("wants an e-mail address and a password of 12 to 128 characters", () => {
    const v = { ...emptyForm(), firstName: "A", lastName: "B", username: "nope", role: USER };
    expect(validateUser(v, adminNew)).toEqual({ username: "invalid", password: "required" });
    expect(validateUser({ ...v, username: "a@b.ca", password: "short" }, adminNew)).toEqual({ password: "tooShort" });
    expect(validateUser({ ...v, username: "a@b.ca", password: "x".repeat(129) }, adminNew)).toEqual({
      password: "tooLong",
    });
    expect(validateUser({ ...v, username: "a@b.ca", password: "x".repeat(12) }, adminNew)).toEqual({});
  });

  it("password change: current, new and confirm, new equal to confirm; an admin reset only a new one", () => {
    expect(validatePasswordChange({ oldPassword: "", newPassword: "", confirmPassword: "" }, false)).toEqual({
      oldPassword: "required",
      newPassword: "required",
      confirmPassword: "required",
    });
    const p = "a-long-password-1";
    expect(validatePasswordChange({ oldPassword: "x", newPassword: p, confirmPassword: `${p}x` }, false)).toEqual({
      confirmPassword: "mismatch",
    });
    expect(validatePasswordChange({ oldPassword: "x", newPassword: p, confirmPassword: p }, false)).toEqual({});
    expect(validatePasswordChange({ oldPassword: "", newPassword: p, confirmPassword: "" }, true)).toEqual({});
  });

  it("shows groups only for the user role, role fields only to admins", () => {
    expect(visibleFields(admin, USER).groups).toBe(true);
    expect(visibleFields(admin, ADMIN).groups).toBe(false);
    expect(visibleFields(self, USER)).toMatchObject({ permissions: false, groups: false, changePassword: true });
    expect(visibleFields(adminNew, "")).toMatchObject({ password: true, resetPassword: false });
  });

  it("a read-only account sees its profile without Save and changes only its password", () => {
    for (const isAdmin of [false, true]) {
      const mine = visibleFields({ creating: false, admin: isAdmin, own: true, readOnly: true }, USER);
      expect(mine).toMatchObject({ readOnly: true, save: false, changePassword: true, resetPassword: false });
    }
    // A read-only administrator looks at another user: nothing to change, no reset.
    const other = visibleFields({ creating: false, admin: true, own: false, readOnly: true }, USER);
    expect(other).toMatchObject({ readOnly: true, save: false, changePassword: false, resetPassword: false });
    // Admins change their own password with the current one; others' they reset.
    expect(visibleFields({ creating: false, admin: true, own: true }, ADMIN)).toMatchObject({
      save: true,
      changePassword: true,
      resetPassword: false,
    });
    expect(visibleFields({ creating: false, admin: true, own: false }, USER)).toMatchObject({
      changePassword: false,
      resetPassword: true,
    });
  });

  it("sends groups for users, none for admins, the default roles for a non-admin, a password only on create", () => {
    const g = [{ id: 3, name: "Billing" }];
    const v = { ...emptyForm(), firstName: " A ", lastName: "B", username: "a@b.ca", role: USER, groups: g };
    expect(toSave({ ...v, password: "p".repeat(12) }, adminNew)).toEqual({
      username: "a@b.ca",
      firstName: "A",
      lastName: "B",
      accessType: "read-write",
      roles: [USER],
      testCaseGroups: g,
      password: "p".repeat(12),
      kiosk: false,
    });
    expect(toSave({ ...v, kiosk: true }, admin).kiosk).toBe(true);
    expect("kiosk" in toSave({ ...v, kiosk: true }, self)).toBe(false);
    expect(toSave({ ...v, role: ADMIN }, admin).testCaseGroups).toEqual([]);
    const mine = toSave(v, self, { roles: [USER], accessType: "read-only" });
    expect(mine.roles).toEqual([USER]);
    expect(mine.accessType).toBe("read-only");
    expect("password" in mine).toBe(false);
  });

  it("reads a user back and shows 'All' or the count of groups", () => {
    const u = {
      firstName: "A",
      lastName: "B",
      username: "a@b.ca",
      roles: [USER],
      accessType: "read-write",
      testCaseGroups: [{ id: 1, name: "x" }],
    };
    expect(fromUser(u)).toMatchObject({ role: USER, accessType: "read-write", groups: u.testCaseGroups, kiosk: false });
    expect(fromUser({ ...u, kiosk: true }).kiosk).toBe(true);
    expect(groupsCell(u)).toBe(1);
    expect(groupsCell({ ...u, roles: [ADMIN] })).toBe("all");
  });
});

describe("an administrator's own demotion", () => {
  const current = { roles: ["ROLE_ADMIN"], accessType: "read-write" };
  const mine = { creating: false, admin: true, own: true };
  const form = (role: "ROLE_ADMIN" | "ROLE_USER", accessType: "read-write" | "read-only") => ({
    ...emptyForm(),
    role,
    accessType,
  });

  it("is asked for when the own role or access goes down", () => {
    expect(selfDemotion(form("ROLE_USER", "read-write"), mine, current)).toEqual({
      role: true,
      access: false,
      noGroups: true,
    });
    expect(selfDemotion(form("ROLE_ADMIN", "read-only"), mine, current)).toEqual({
      role: false,
      access: true,
      noGroups: false,
    });
    expect(selfDemotion(form("ROLE_USER", "read-only"), mine, current)).toEqual({
      role: true,
      access: true,
      noGroups: true,
    });
  });

  it("warns a User with no group that they will see nothing", () => {
    const withGroup = { ...form("ROLE_USER", "read-write"), groups: [{ id: 3, name: "Billing" }] };
    expect(selfDemotion(withGroup, mine, current)?.noGroups).toBe(false);
    expect(selfDemotion(form("ROLE_USER", "read-write"), mine, current)?.noGroups).toBe(true);
  });

  it("is not asked for another user, an unchanged profile, or a read-only account", () => {
    expect(selfDemotion(form("ROLE_ADMIN", "read-write"), mine, current)).toBeNull();
    expect(selfDemotion(form("ROLE_USER", "read-only"), { ...mine, own: false }, current)).toBeNull();
    expect(selfDemotion(form("ROLE_USER", "read-only"), { ...mine, readOnly: true }, current)).toBeNull();
    expect(selfDemotion(form("ROLE_USER", "read-only"), mine, undefined)).toBeNull();
  });
});
