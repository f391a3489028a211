// @vitest-environment jsdom
// The pure pieces of the flavour "spec" fallbacks: the events call without cxwatch's status
// parameter, the open-alerts count from a page of events, and the contact groups from the
// distribution lists.
import { describe, expect, it } from "vitest";
import { contactGroupsOf } from "./alertSettings";
import { eventsCall, openOnPage, SPEC_FILTER_WINDOW, statusIdOf } from "./alerts";

describe("alert events under each flavour", () => {
  it("sends status only to cxwatch's API; under spec a status filter asks the newest events", () => {
    expect(eventsCall({ pageNo: 2, pageSize: 20, status: 7 }, true)).toEqual({ pageNo: 2, pageSize: 20, status: 7 });
    expect(eventsCall({ pageNo: 2, pageSize: 20 }, false)).toEqual({ pageNo: 2, pageSize: 20 });
    expect(eventsCall({ pageNo: 2, pageSize: 20, status: 4 }, false)).toEqual({
      pageNo: 0,
      pageSize: SPEC_FILTER_WINDOW,
    });
  });

  it("reads an event's status from its first run, else its own", () => {
    const e = { alertId: 1, testCaseName: "c", alertTime: "t", distributionName: "d", testRunCount: 1 };
    expect(statusIdOf({ ...e, testRuns: [{ runStatusId: 4 }] as never })).toBe(4);
    expect(statusIdOf({ ...e, statusId: 7 })).toBe(7);
  });

  it("counts open events on a page, and says nothing when events have no open field", () => {
    const e = { alertId: 1, testCaseName: "c", alertTime: "t", distributionName: "d", testRunCount: 1 };
    expect(
      openOnPage({
        content: [
          { ...e, open: true },
          { ...e, open: false },
          { ...e, open: true },
        ],
        totalElements: 3,
      }),
    ).toBe(2);
    expect(openOnPage({ content: [e, e], totalElements: 2 })).toBeUndefined();
    expect(openOnPage([{ ...e, open: false }])).toBe(0);
    expect(openOnPage(undefined)).toBeUndefined();
  });
});

describe("contact groups from GET distributions", () => {
  it("keeps id and name of each list, from an array or a page", () => {
    const lists = [
      { id: 3, name: "On call", label: ["a"], contacts: [] },
      { id: 4, name: "Managers" },
    ];
    expect(contactGroupsOf(lists as never)).toEqual([
      { id: 3, name: "On call" },
      { id: 4, name: "Managers" },
    ]);
    expect(contactGroupsOf({ content: lists, totalElements: 2 } as never)).toHaveLength(2);
  });
});
