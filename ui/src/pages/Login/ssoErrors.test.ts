import { describe, expect, it } from "vitest";
import { ssoErrorMessage, takeSsoError } from "./ssoErrors";

describe("single sign-on errors", () => {
  it("has a message for every code the server sends", () => {
    const codes = [
      "provider_down",
      "provider_untrusted",
      "wrong_issuer",
      "state",
      "not_allowed",
      "provider_error",
      "invalid_token",
    ];
    const ids = new Set(codes.map((c) => ssoErrorMessage(c)?.id));
    expect(ids.size).toBe(codes.length);
    expect(ssoErrorMessage("something_new")?.id).toBeTruthy();
    expect(ssoErrorMessage("constructor")).toEqual(ssoErrorMessage("something_new"));
    expect(ssoErrorMessage(null)).toBeUndefined();
    expect(ssoErrorMessage("")).toBeUndefined();
  });

  it("takes the code out of the address", () => {
    expect(takeSsoError("?sso_error=state")).toEqual({ code: "state", rest: "" });
    expect(takeSsoError("?a=1&sso_error=not_allowed")).toEqual({ code: "not_allowed", rest: "?a=1" });
    expect(takeSsoError("")).toEqual({ code: null, rest: "" });
  });
});
