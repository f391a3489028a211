import { i18n } from "@lingui/core";
import { describe, expect, it } from "vitest";
import { messages as fr } from "../locales/fr/messages.po";
import { failureText } from "./errorText";

const said = (call: Parameters<typeof failureText>[0], locale: "en" | "fr") => {
  i18n.loadAndActivate({ locale, messages: locale === "fr" ? fr : {} });
  const text = failureText(call, locale === "en");
  return text ? i18n._(text.own) : undefined;
};

describe("what a failed call says in the console's language", () => {
  it("says why a report cannot be opened: outside the groups, or missing", () => {
    const hidden = { method: "GET", path: "reports/12", status: 403, code: "FORBIDDEN" };
    expect(said(hidden, "en")).toBe("Report 12 is not in your test case groups.");
    expect(said(hidden, "fr")).toBe("Le rapport 12 n’est pas dans vos groupes de cas de test.");
    const missing = { method: "GET", path: "reports/99/latency", status: 404, code: "NOT_FOUND" };
    expect(said(missing, "en")).toBe("Report 99 does not exist.");
    expect(said(missing, "fr")).toBe("Le rapport 99 n’existe pas.");
    expect(said({ method: "GET", path: "alerts/events/5", status: 403, code: "FORBIDDEN" }, "en")).toBe(
      "Alert 5 is not in your test case groups.",
    );
  });

  it("says which server a test message lacks, by the contact type asked", () => {
    const call = (query: Record<string, string>) => ({
      method: "POST",
      path: "distributions/testContact",
      query,
      status: 409,
      code: "NOT_CONFIGURED",
    });
    expect(said(call({ email: "a@b.c" }), "fr")).toBe(
      "Aucun serveur de courriel n’est configuré sur ce site : un courriel de test ne peut pas être envoyé.",
    );
    expect(said(call({ sms: "+15145550100" }), "en")).toBe(
      "No SMS gateway is configured on this site: a test SMS cannot be sent.",
    );
  });

  it("keeps the server's own English words on English pages, and words other failures by code elsewhere", () => {
    const conflict = { method: "DELETE", path: "distributions/3", status: 409, code: "CONFLICT" };
    expect(failureText(conflict, true)).toBeUndefined();
    expect(said(conflict, "fr")).toBe(
      "Cette modification est en conflit avec les données enregistrées sur le serveur.",
    );
    expect(failureText(conflict, false)?.detail).toBe(true);
    // A vendor's answer without a code: by its status.
    expect(said({ method: "PUT", path: "users/3", status: 403, code: "HTTP_403" }, "fr")).toBe(
      "Votre accès ne le permet pas.",
    );
    expect(failureText({ method: "GET", path: "reports/1", status: 401, code: "UNAUTHORIZED" }, false)).toBeUndefined();
  });

  it("says the database is away or the disk full, not that the server failed", () => {
    expect(said({ method: "GET", path: "reports", status: 503, code: "UNAVAILABLE" }, "fr")).toBe(
      "La base de données est injoignable ; rien n’a été fait. Réessayez dans quelques secondes.",
    );
    expect(said({ method: "PUT", path: "users/3", status: 507, code: "INSUFFICIENT_STORAGE" }, "fr")).toBe(
      "Le disque du serveur est plein ; rien n’a été enregistré. Réessayez une fois de l’espace libéré.",
    );
  });
});
