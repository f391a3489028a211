// Login form check (spec §2 'Login', §5): both fields are required after trimming. The result
// only marks the fields: the sign-in call is made anyway.

export interface LoginFields {
  username: string;
  password: string;
}

export type LoginErrors = Partial<Record<keyof LoginFields, "required">>;

export function validateLogin(fields: LoginFields): LoginErrors {
  const errors: LoginErrors = {};
  if (!fields.username.trim()) errors.username = "required";
  if (!fields.password.trim()) errors.password = "required";
  return errors;
}

/** The failed-login modal disappears after 2.5 s (spec §9). */
export const LOGIN_ERROR_MS = 2500;

/** A failed sign-in that is not about the credentials (a wait, an outage) stays 8 s to be read. */
export const LOGIN_NOTICE_MS = 8000;
