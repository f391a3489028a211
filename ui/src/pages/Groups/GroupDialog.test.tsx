// @vitest-environment jsdom
// The group editor in a DOM against a stand-in fetch: a save without a name, a channel or a
// test case shows the errors and sends nothing; the IVR application narrows the grid; a good
// save sends the spec's body and closes the dialog.
import { i18n } from "@lingui/core";
import { I18nProvider } from "@lingui/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GroupDialog } from "./GroupDialog";

const IVRS = [
  {
    id: 10,
    name: "Retail IVR",
    channel: "voice",
    testCases: [
      { id: 1, ivrId: 10, name: "Balance" },
      { id: 2, ivrId: 10, name: "Address" },
    ],
  },
  { id: 11, name: "Cards IVR", channel: "voice", testCases: [{ id: 3, ivrId: 11, name: "Lost card" }] },
  { id: 20, name: "Web bot", channel: "web", testCases: [{ id: 9, ivrId: 20, name: "Order status" }] },
];

beforeAll(() => {
  i18n.loadAndActivate({ locale: "en", messages: {} });
  const proto = HTMLDialogElement.prototype as unknown as Record<string, unknown>;
  if (typeof proto.showModal !== "function") {
    proto.showModal = function (this: HTMLDialogElement) {
      this.setAttribute("open", "");
    };
    proto.close = function (this: HTMLDialogElement) {
      this.removeAttribute("open");
    };
  }
});

let root: HTMLElement;
afterEach(() => {
  render(null, root);
  root.remove();
  vi.unstubAllGlobals();
});

const ok = (data: unknown) =>
  new Response(JSON.stringify({ code: "OK", data, messages: [] }), {
    status: 200,
    headers: { "Content-Type": "application/json" },
  });

async function mount() {
  const calls: { method: string; url: string; body?: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init: RequestInit) => {
      const method = init?.method ?? "GET";
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ method, url: String(url), body });
      if (String(url).includes("trs/v1/ivrs")) return ok(IVRS);
      if (method === "POST")
        return ok({ id: 7, name: body.name, channel: body.channel, caseCount: 1, ivrCount: 1, testCases: [] });
      return ok(null);
    }),
  );
  const onClose = vi.fn();
  root = document.createElement("div");
  document.body.appendChild(root);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  await act(() => {
    render(
      <QueryClientProvider client={qc}>
        <I18nProvider i18n={i18n}>
          <GroupDialog id={0} onClose={onClose} />
        </I18nProvider>
      </QueryClientProvider>,
      root,
    );
  });
  // Until the IVR applications have come (the machine may be slow).
  for (let i = 0; i < 200 && !calls.some((c) => c.url.includes("ivrs")); i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
  await act(async () => {
    await new Promise((r) => setTimeout(r, 20));
  });
  const $ = (id: string) => root.querySelector(`[data-testid=${id}]`) as HTMLElement;
  const $$ = (id: string) => [...root.querySelectorAll(`[data-testid=${id}]`)] as HTMLInputElement[];
  const posts = () => calls.filter((c) => c.method !== "GET");
  return { $, $$, posts, onClose };
}

async function set(el: HTMLElement, value: string, event: "input" | "change") {
  await act(async () => {
    (el as HTMLInputElement).value = value;
    el.dispatchEvent(new Event(event, { bubbles: true }));
  });
}

const save = async (form: HTMLElement) =>
  act(async () => {
    form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    await new Promise((r) => setTimeout(r, 20));
  });

describe("GroupDialog", () => {
  it("shows every missing field and sends nothing", async () => {
    const { $, posts } = await mount();
    await save($("group-form"));
    expect(root.querySelectorAll(".field-error").length).toBe(3);
    expect($("error-testCases").textContent).toBe("Please select at least one test case");
    expect(posts()).toEqual([]);
  });

  it("offers the channel's test cases, narrowed by IVR application, and saves the spec's body", async () => {
    const { $, $$, posts, onClose } = await mount();
    await set($("group-name"), "  Retail  ", "input");
    await set($("group-channel"), "voice", "change");
    expect($$("case-row").map((r) => r.textContent)).toEqual([
      "2AddressRetail IVR",
      "1BalanceRetail IVR",
      "3Lost cardCards IVR",
    ]);
    await save($("group-form"));
    expect($("error-testCases")).toBeTruthy();
    expect(posts()).toEqual([]);
    await set($("group-ivr"), "11", "change");
    expect($$("case-row").length).toBe(1);
    await act(async () => {
      $$("case-select")[0].click();
    });
    expect($("error-testCases")).toBeNull();
    await save($("group-form"));
    expect(posts()).toEqual([
      {
        method: "POST",
        url: expect.stringContaining("trs/v1/groups"),
        body: { name: "Retail", channel: "voice", testCases: [{ id: 3 }] },
      },
    ]);
    expect(onClose).toHaveBeenCalled();
  });

  it("drops the chosen test cases of the other channel", async () => {
    const { $, $$ } = await mount();
    await set($("group-channel"), "voice", "change");
    await act(async () => {
      $$("case-select")[0].click();
    });
    expect($("case-count").textContent).toContain("1");
    await set($("group-channel"), "web", "change");
    expect($("case-count").textContent).toContain("0");
    expect($$("case-row").map((r) => r.textContent)).toEqual(["9Order statusWeb bot"]);
  });
});
