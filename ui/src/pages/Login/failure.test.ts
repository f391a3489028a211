import { i18n } from "@lingui/core";
import { beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../api";
import { messages as fr } from "../../locales/fr/messages.po";
import { loginFailure, loginFailureMessage } from "./failure";

const said = (err: unknown, locale = "en") => {
  i18n.loadAndActivate({ locale, messages: locale === "fr" ? fr : {} });
  return i18n._(loginFailureMessage(loginFailure(err)));
};

const throttled = (secs: number) =>
  new ApiError(429, "TOO_MANY_REQUESTS", [`Too many failed sign-in attempts; try again in ${secs} seconds`]);

describe("the sign-in failure message", () => {
  beforeEach(() => i18n.loadAndActivate({ locale: "en", messages: {} }));

  it("asks to check the credentials only for refused credentials", () => {
    const check = "Please check your credentials and try again, otherwise contact support";
    expect(said(new ApiError(401, "UNAUTHORIZED", ["Access is denied!"]))).toBe(check);
    expect(said(new ApiError(400, "BAD_REQUEST", ["username is required"]))).toBe(check);
  });

  it("says how long to wait after too many attempts", () => {
    expect(loginFailure(throttled(240))).toEqual({ kind: "throttled", waitSecs: 240 });
    expect(said(throttled(240))).toBe("Sign-in is locked after too many failed attempts. Try again in 4 minutes.");
    expect(said(throttled(181))).toBe("Sign-in is locked after too many failed attempts. Try again in 4 minutes.");
    expect(said(throttled(60))).toBe("Sign-in is locked after too many failed attempts. Try again in 1 minute.");
    expect(said(throttled(29))).toBe("Sign-in is locked after too many failed attempts. Try again in 29 seconds.");
    expect(said(throttled(1))).toBe("Sign-in is locked after too many failed attempts. Try again in 1 second.");
    // A 429 that does not say how long (another server behind a proxy).
    expect(said(new ApiError(429, "HTTP_429", ["slow down"]))).toBe(
      "Sign-in is locked after too many failed attempts. Try again later.",
    );
    expect(said(throttled(240), "fr")).toBe(
      "La connexion est bloquée après trop de tentatives échouées. Réessayez dans 4 minutes.",
    );
    expect(said(throttled(60), "fr")).toBe(
      "La connexion est bloquée après trop de tentatives échouées. Réessayez dans 1 minute.",
    );
    expect(said(throttled(29), "fr")).toBe(
      "La connexion est bloquée après trop de tentatives échouées. Réessayez dans 29 secondes.",
    );
  });

  it("says the service cannot be reached when nothing or a proxy's gateway error answers", () => {
    const unreachable = "The service cannot be reached. Try again later, otherwise contact support.";
    for (const err of [
      new ApiError(0, "NETWORK", ["The server could not be reached."]),
      new ApiError(0, "TIMEOUT", ["The server did not answer within 30 seconds. Please try again."]),
      new ApiError(502, "BAD_GATEWAY", ["The upstream cannot be reached"]),
      new ApiError(503, "HTTP_503", []),
      new ApiError(504, "GATEWAY_TIMEOUT", []),
      new TypeError("Failed to fetch"),
    ]) {
      expect(loginFailure(err).kind, String(err)).toBe("unreachable");
      expect(said(err)).toBe(unreachable);
    }
    expect(said(new ApiError(502, "BAD_GATEWAY", []), "fr")).toBe(
      "Le service est injoignable. Réessayez plus tard, sinon contactez le support.",
    );
  });

  it("does not blame the credentials for a server failure", () => {
    expect(said(new ApiError(500, "INTERNAL", []))).toBe(
      "The sign-in failed because of a problem on the server (HTTP 500). Try again later, otherwise contact support.",
    );
  });
});
