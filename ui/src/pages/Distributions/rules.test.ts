import { describe, expect, it } from "vitest";
import {
  canDeleteRow,
  confirmQuery,
  EMAIL,
  emptyRow,
  inputTypeOf,
  inUse,
  isE164,
  isWebhookUrl,
  MATTERMOST,
  offeredTypes,
  SLACK,
  SMS,
  TEAMS,
  toSave,
  VOICE,
  validateDistribution,
  WEBHOOK,
} from "./rules";

describe("distribution list rules", () => {
  it("checks in the server's order and names each field", () => {
    const e = validateDistribution({
      name: " ",
      contacts: [
        { name: "", type: EMAIL, info: "nope" },
        { name: "Phone", type: 0, info: "" },
        { name: "Desk", type: VOICE, info: "514" },
      ],
    });
    expect(Object.entries(e)).toEqual([
      ["name", "required"],
      ["contacts[0].name", "required"],
      ["contacts[0].info", "invalid"],
      ["contacts[1].type", "required"],
      ["contacts[1].info", "required"],
      ["contacts[2].info", "invalid"],
    ]);
    expect(validateDistribution({ name: "On call", contacts: [] })).toEqual({ contacts: "required" });
  });

  it("takes numbers as people type them, in E.164", () => {
    expect(isE164("+1 (514) 555-0100")).toBe(true);
    expect(isE164("5145550100")).toBe(false);
    expect(isE164("+0123456789")).toBe(false);
    const v = { name: " On call ", contacts: [{ name: " Phone ", type: SMS, info: "+1 514.555.0100" } as const] };
    expect(validateDistribution({ ...v, contacts: [...v.contacts] })).toEqual({});
    expect(toSave({ ...v, contacts: [...v.contacts] })).toEqual({
      name: "On call",
      contacts: [{ name: "Phone", type: SMS, info: "+15145550100" }],
    });
  });

  it("gives e-mail rows an email input, others a phone input; delete only beside another row", () => {
    expect(inputTypeOf(EMAIL)).toBe("email");
    expect(inputTypeOf(SMS)).toBe("tel");
    expect(inputTypeOf(VOICE)).toBe("tel");
    expect(canDeleteRow([emptyRow()])).toBe(false);
    expect(canDeleteRow([emptyRow(), emptyRow()])).toBe(true);
  });

  it("confirms each row on its own channel", () => {
    expect(confirmQuery({ name: "a", type: EMAIL, info: " a@b.test " })).toEqual({ email: "a@b.test" });
    expect(confirmQuery({ name: "a", type: SMS, info: "+1 514 555 0100" })).toEqual({ sms: "+15145550100" });
    expect(confirmQuery({ name: "a", type: VOICE, info: "+15145550100" })).toEqual({ voice: "+15145550100" });
  });
});

describe("webhook contacts", () => {
  it("are web addresses, offered on cxwatch's API only, confirmed by their kind", () => {
    expect(isWebhookUrl("https://hooks.slack.com/services/T0/B0/x")).toBe(true);
    expect(isWebhookUrl(" http://127.0.0.1:8080/hooks/a?b=1 ")).toBe(true);
    for (const bad of ["hooks.slack.com/x", "ftp://h/x", "https://", "https://u:p@h/x", "https://h/a b"]) {
      expect(isWebhookUrl(bad)).toBe(false);
    }
    expect(offeredTypes(false)).toEqual([EMAIL, SMS, VOICE]);
    expect(offeredTypes(true)).toEqual([EMAIL, SMS, VOICE, WEBHOOK, TEAMS, SLACK, MATTERMOST]);
    expect(inputTypeOf(TEAMS)).toBe("url");
    const row = { name: "Ops", type: MATTERMOST, info: " https://mm.example.com/hooks/abc " } as const;
    expect(confirmQuery(row)).toEqual({ mattermost: "https://mm.example.com/hooks/abc" });
    expect(confirmQuery({ ...row, type: WEBHOOK })).toEqual({ webhook: "https://mm.example.com/hooks/abc" });
    expect(toSave({ name: "L", contacts: [row] }).contacts[0].info).toBe("https://mm.example.com/hooks/abc");
    expect(validateDistribution({ name: "L", contacts: [{ ...row, info: "nope" }] })).toEqual({
      "contacts[0].info": "invalid",
    });
  });
});

describe("a list in use", () => {
  const none = { alertSettings: [], escalations: [], reportSchedules: [] };
  it("is one that an alert setting sends or escalates to, or a report is scheduled to", () => {
    expect(inUse(none)).toBe(false);
    expect(inUse({ ...none, alertSettings: [{ id: 1, name: "Billing down" }] })).toBe(true);
    expect(inUse({ ...none, escalations: [{ id: 1, name: "Billing down" }] })).toBe(true);
    expect(inUse({ ...none, reportSchedules: [{ id: 4, name: "Weekly" }] })).toBe(true);
  });
});
