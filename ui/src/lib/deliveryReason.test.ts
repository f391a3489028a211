import { i18n } from "@lingui/core";
import { describe, expect, it } from "vitest";
import { deliveryReason } from "./deliveryReason";

describe("delivery reasons", () => {
  it("says every code the server sends, the status of an HTTP answer, and falls back", () => {
    i18n.loadAndActivate({ locale: "en", messages: {} });
    const codes = [
      "untrusted_certificate",
      "rate_limited",
      "timeout",
      "unreachable",
      "bad_address",
      "authentication_failed",
      "mail_refused",
      "mail_deferred",
      "not_configured",
      "blocked_host",
      "failed",
    ];
    const said = new Set(codes.map((c) => deliveryReason(i18n, c)));
    expect(said.size).toBe(codes.length);
    expect(deliveryReason(i18n, "http_status", 404)).toContain("404");
    expect(deliveryReason(i18n, "http_status", 401)).toContain("credentials");
    expect(deliveryReason(i18n, "http_status", 502)).toContain("502");
    expect(deliveryReason(i18n, "something_new")).toBe(deliveryReason(i18n, "failed"));
    expect(deliveryReason(i18n, "constructor")).toBe(deliveryReason(i18n, "failed"));
    expect(deliveryReason(i18n, null)).toBeUndefined();
  });
});
