import { describe, expect, it } from "vitest";
import { LOGIN_ERROR_MS, validateLogin } from "./validation";

describe("login validation", () => {
  it("marks both fields required when empty", () => {
    expect(validateLogin({ username: "", password: "" })).toEqual({ username: "required", password: "required" });
  });

  it("trims: blanks only count as empty", () => {
    expect(validateLogin({ username: "   ", password: "\t \n" })).toEqual({
      username: "required",
      password: "required",
    });
  });

  it("accepts filled fields, with the spaces kept for the call", () => {
    expect(validateLogin({ username: " ops@example.com ", password: " secret " })).toEqual({});
    expect(validateLogin({ username: "ops", password: "" })).toEqual({ password: "required" });
  });

  it("hides the failed-login modal after 2.5 s", () => {
    expect(LOGIN_ERROR_MS).toBe(2500);
  });
});
