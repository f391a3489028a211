// @vitest-environment jsdom
// The drill screen in a DOM against a stand-in fetch: the route's parameters become the right
// call (a test case's runs, or a dashboard bar's group hour), and each row leads to its run.
import { i18n } from "@lingui/core";
import { I18nProvider } from "@lingui/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Route, Router } from "wouter";
import { tenant } from "../../lib/tenant";
import type { ApiFlavor } from "../../lib/types";
import { DrillPage } from "./index";

const PAGE = {
  totalElements: 1,
  content: [
    {
      runId: 77,
      testCaseId: 12,
      testCaseName: "Claim status",
      runTime: "2026-01-15T18:20:00Z",
      runDuration: 42.5,
      runStatusId: 7,
      runStatus: "Failure",
      mosCqIn: 2.71,
      runType: "Schedule",
      runResult: "stopped",
    },
  ],
};

beforeAll(() => i18n.loadAndActivate({ locale: "en", messages: {} }));

let root: HTMLElement;
afterEach(() => {
  render(null, root);
  root.remove();
  vi.unstubAllGlobals();
});

/** A vendor's runs: section 3's fields only, as an array, without `code`. */
const SPEC_RUNS = [
  {
    runId: 81,
    testCaseId: 12,
    testCaseName: "Claim status",
    runTime: "2026-01-15T18:20:00Z",
    runDuration: 3,
    runStatusId: 4,
  },
  {
    runId: 82,
    testCaseId: 12,
    testCaseName: "Claim status",
    runTime: "2026-01-15T18:40:00Z",
    runDuration: 3,
    runStatusId: 3,
  },
  {
    runId: 83,
    testCaseId: 12,
    testCaseName: "Claim status",
    runTime: "2026-01-15T19:10:00Z",
    runDuration: 3,
    runStatusId: 4,
  },
  {
    runId: 84,
    testCaseId: 13,
    testCaseName: "Balance",
    runTime: "2026-01-15T18:50:00Z",
    runDuration: 3,
    runStatusId: 4,
  },
];

async function mount(path: string, search: string, flavor: ApiFlavor = "cxwatch") {
  const urls: string[] = [];
  tenant.set({ apiBaseUrl: "/api", apiFlavor: flavor });
  const group = {
    id: 4,
    name: "Claims",
    channel: "voice",
    caseCount: 2,
    ivrCount: 1,
    testCases: [
      { id: 12, ivrId: 1, name: "Claim status" },
      { id: 13, ivrId: 1, name: "Balance" },
    ],
  };
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      urls.push(String(url));
      const u = String(url);
      const m = /testcases\/(\d+)\/runs/.exec(u);
      const data =
        flavor === "spec"
          ? m
            ? SPEC_RUNS.filter((r) => r.testCaseId === Number(m[1]))
            : group
          : u.includes("/runs")
            ? PAGE
            : group;
      const body = flavor === "spec" ? { data } : { code: "OK", data, messages: [] };
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: { "Content-Type": "application/json" },
      });
    }),
  );
  root = document.createElement("div");
  document.body.appendChild(root);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const hook = (): [string, (to: string) => void] => [path, () => {}];
  const searchHook = () => search;
  await act(() => {
    render(
      <QueryClientProvider client={qc}>
        <I18nProvider i18n={i18n}>
          <Router hook={hook} searchHook={searchHook}>
            <Route
              path="/report/drill/:entityId/:status/:periodStart/:periodEnd/:reportId?/:latency?"
              component={DrillPage}
            />
          </Router>
        </I18nProvider>
      </QueryClientProvider>,
      root,
    );
  });
  for (let i = 0; i < 200 && !root.querySelector("[data-testid=run-link]"); i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
  return urls;
}

describe("DrillPage", () => {
  it("lists a test case's runs of a status over the period; rows lead to the run with the latency", async () => {
    const urls = await mount("/report/drill/12/failure/2026-01-15/2026-01-16/0/2.5", "");
    const call = new URL(urls.find((u) => u.includes("/runs")) ?? "", "https://x");
    expect(call.pathname).toBe("/api/trs/v1/testcases/12/runs");
    expect(Object.fromEntries(call.searchParams)).toEqual({
      pageNo: "0",
      pageSize: "10",
      status: "failure",
      startDate: "2026-01-15",
      endDate: "2026-01-16",
    });
    const link = root.querySelector("[data-testid=run-link]");
    expect(link?.getAttribute("href")).toBe("/report/run/77/2.5");
    expect(link?.textContent).toBe("Claim status");
    const row = link?.closest("tr")?.textContent ?? "";
    expect(row).toContain("2026/01/15 13:20:00");
    expect(row).toContain("42.50\u00a0sec");
    expect(row).toContain("Failure (Stopped)");
    expect(row).toContain("2.7");
  });

  it("lists a dashboard bar's runs: the group, the hour, the status and the run type", async () => {
    const urls = await mount(
      "/report/drill/4/warning/2026-01-15/2026-01-15",
      "level=group&hrSlot=13&caseRunType=Schedule&page=2&size=20",
    );
    const call = new URL(urls.find((u) => u.includes("/runs")) ?? "", "https://x");
    expect(call.pathname).toBe("/api/trs/v1/groups/4/runs");
    expect(Object.fromEntries(call.searchParams)).toEqual({
      pageNo: "1",
      pageSize: "20",
      status: "warning",
      startDate: "2026-01-15",
      hrSlot: "13",
      caseRunType: "Schedule",
    });
    expect(root.querySelector("[data-testid=run-link]")?.getAttribute("href")).toBe("/report/run/77");
    expect(root.querySelector("[data-testid=drill-entity]")?.textContent).toBe("Claims");
  });

  it("under flavour spec, asks a test case's runs with section 7's parameters and pages the array here", async () => {
    const urls = await mount("/report/drill/12/warning/2026-01-15/2026-01-16", "", "spec");
    const call = new URL(urls.find((u) => u.includes("/runs")) ?? "", "https://x");
    expect(call.pathname).toBe("/api/trs/v1/testcases/12/runs");
    expect(Object.fromEntries(call.searchParams)).toEqual({ startDate: "2026-01-15", endDate: "2026-01-16" });
    const links = [...root.querySelectorAll("[data-testid=run-link]")].map((a) => a.getAttribute("href"));
    expect(links).toEqual(["/report/run/83", "/report/run/81"]);
    expect(root.querySelector("[data-testid=drill-count]")?.textContent).toBe("2");
  });

  it("under flavour spec, builds a dashboard bar's runs from the group's test cases and their runs", async () => {
    // 18:xx UTC is 13:xx in Toronto in January.
    const urls = await mount("/report/drill/4/warning/2026-01-15/2026-01-15", "level=group&hrSlot=13", "spec");
    expect(urls.some((u) => u.includes("groups/4/runs"))).toBe(false);
    expect(urls).toContain("/api/trs/v1/groups/4");
    expect(urls).toContain("/api/trs/v1/testcases/12/runs?startDate=2026-01-15&endDate=2026-01-15");
    expect(urls).toContain("/api/trs/v1/testcases/13/runs?startDate=2026-01-15&endDate=2026-01-15");
    const links = [...root.querySelectorAll("[data-testid=run-link]")].map((a) => a.getAttribute("href"));
    expect(links).toEqual(["/report/run/84", "/report/run/81"]);
  });

  it("answers an address it cannot show with the 404 page", async () => {
    root = document.createElement("div");
    document.body.appendChild(root);
    const hook = (): [string, (to: string) => void] => ["/report/drill/x/late/2026-01-15/2026-01-15", () => {}];
    await act(() => {
      render(
        <I18nProvider i18n={i18n}>
          <Router hook={hook} searchHook={() => ""}>
            <Route
              path="/report/drill/:entityId/:status/:periodStart/:periodEnd/:reportId?/:latency?"
              component={DrillPage}
            />
          </Router>
        </I18nProvider>,
        root,
      );
    });
    expect(root.querySelector("[data-testid=not-found]")).toBeTruthy();
  });
});
