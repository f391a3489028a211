// @vitest-environment jsdom
// A list screen in a DOM, with the real ListScreen, DataTable, Pager, SearchBox and confirmation,
// over a real query of an in-memory list: the address gives the page, search and sort; sorting
// clears the selection and goes back to the first page; 'Delete Selected' asks, deletes one by
// one and reloads; a list without deletion or a reader's list offers neither.
import { i18n } from "@lingui/core";
import { I18nProvider } from "@lingui/react";
import { keepPreviousData, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { type ComponentChildren, render } from "preact";
import { act } from "preact/test-utils";
import { useState } from "react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Router } from "wouter";
import type { Column } from "../../components/DataTable";
import { queryClient } from "../../lib/queryClient";
import { ListScreen, type ListScreenOptions, RowDelete, useListScreen } from "./ListScreen";
import { type SearchedListParams, searchedListOf } from "./listParams";

interface Thing {
  id: number;
  name: string;
}

let things: Thing[] = [];
let asked: SearchedListParams<"id" | "name">[] = [];
let deleted: number[] = [];
/** The address the screen was last taken to. */
let address = "";

/** The address bar: a router whose location is `address`, replaced when the screen navigates. */
function AtAddress(props: { start: string; children: ComponentChildren }) {
  const [to, setTo] = useState(props.start);
  address = to;
  const [path, search = ""] = to.split("?");
  const hook = (): [string, (next: string) => void] => [path, setTo];
  return (
    <Router hook={hook} searchHook={() => search}>
      {props.children}
    </Router>
  );
}

const parse = (search: string) =>
  searchedListOf(new URLSearchParams(search), ["id", "name"], { field: "id", dir: "desc" });

/** One page of `things`, searched, sorted and paged as a server would. */
function useThings(p: SearchedListParams<"id" | "name">) {
  return useQuery({
    queryKey: ["things", "list", p],
    queryFn: async () => {
      asked.push(p);
      const sign = p.sort.dir === "asc" ? 1 : -1;
      const rows = things
        .filter((x) => x.name.includes(p.search))
        .sort((a, b) => sign * String(a[p.sort.field]).localeCompare(String(b[p.sort.field]), "en", { numeric: true }));
      return { content: rows.slice(p.pageNo * p.pageSize, (p.pageNo + 1) * p.pageSize), totalElements: rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

const columns: Column<Thing>[] = [
  { key: "id", label: "ID", sortable: true, render: (x) => x.id },
  { key: "name", label: "Name", sortable: true, render: (x) => x.name },
];

function Things(props: { remove: boolean; writable?: boolean }) {
  const options: ListScreenOptions<SearchedListParams<"id" | "name">, Thing> = {
    parse,
    useList: useThings,
    name: (x) => x.name,
    remove: props.remove
      ? {
          deleteOne: async (id) => {
            deleted.push(id);
            things = things.filter((x) => x.id !== id);
            return true;
          },
          listKey: ["things", "list"],
          many: (count) => `${count} things`,
          failed: "not deleted",
        }
      : undefined,
  };
  const list = useListScreen(options);
  return (
    <ListScreen
      list={list}
      testId="things"
      title="Things"
      writable={props.writable}
      create={{ href: "/things/0", testId: "new-thing" }}
      tableTestId="things-table"
      columns={columns}
      actions={(x) => <RowDelete list={list} row={x} testId="delete-thing" />}
    />
  );
}

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
  queryClient.clear();
});

const settle = () =>
  act(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
  });

async function mount(start: string, props: { remove: boolean; writable?: boolean }) {
  things = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, name: `thing ${i + 1}` }));
  asked = [];
  deleted = [];
  root = document.createElement("div");
  document.body.appendChild(root);
  await act(() => {
    render(
      <QueryClientProvider client={queryClient}>
        <I18nProvider i18n={i18n}>
          <AtAddress start={start}>
            <Things {...props} />
          </AtAddress>
        </I18nProvider>
      </QueryClientProvider>,
      root,
    );
  });
  await settle();
}

const $ = (id: string) => root.querySelector(`[data-testid=${id}]`) as HTMLElement | null;
const $$ = (id: string) => [...root.querySelectorAll(`[data-testid=${id}]`)] as HTMLInputElement[];
const rowIds = () => $$("table-row").map((r) => Number(r.dataset.rowId));
const click = async (el: HTMLElement | null) => {
  await act(() => el?.click());
  await settle();
};

describe("ListScreen", () => {
  it("shows the page, search and sort the address holds", async () => {
    await mount("/things?page=2&sort=name,asc&search=thing%202", { remove: true });
    expect(asked.at(-1)).toEqual({
      page: 2,
      pageNo: 1,
      pageSize: 10,
      search: "thing 2",
      sort: { field: "name", dir: "asc" },
    });
    // 'thing 2' and 'thing 20' to 'thing 25': seven, the second page of ten is empty.
    expect(rowIds()).toEqual([]);
    expect($("table-empty")?.textContent).toBe("No Data");
    expect(($("search-box") as HTMLInputElement).value).toBe("thing 2");
    expect(root.querySelector("th[aria-sort]")?.textContent).toContain("Name");
    expect(root.querySelector("th[aria-sort]")?.getAttribute("aria-sort")).toBe("ascending");
    expect($("pager-range")?.textContent).toBe("7 - 7 of 7 items");
  });

  it("sorting clears the selection and goes back to the first page", async () => {
    await mount("/things?page=2", { remove: true });
    expect(rowIds()).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6]);
    await click($$("row-select")[0]);
    expect(($("delete-selected") as HTMLButtonElement).disabled).toBe(false);
    await click($("sort-name"));
    expect(address).toBe("/things?sort=name%2Casc");
    expect(($("delete-selected") as HTMLButtonElement).disabled).toBe(true);
    expect($$("row-select").some((c) => c.checked)).toBe(false);
    expect(rowIds()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("'Delete Selected' names what goes, deletes one by one and reloads the list", async () => {
    await mount("/things", { remove: true });
    const boxes = $$("row-select");
    await click(boxes[0]);
    await click(boxes[1]);
    await click($("delete-selected"));
    expect($("confirm-dialog")?.textContent).toContain("Are you sure you want to delete 2 things?");
    const before = asked.length;
    await click($("confirm-delete"));
    expect(deleted).toEqual([25, 24]);
    expect(asked.length).toBeGreaterThan(before);
    expect(rowIds()).toEqual([23, 22, 21, 20, 19, 18, 17, 16, 15, 14]);
    expect($("pager-range")?.textContent).toBe("1 - 10 of 23 items");
  });

  it("a row's own Delete names the row", async () => {
    await mount("/things", { remove: true });
    const del = $$("delete-thing")[2];
    expect(del.getAttribute("aria-label")).toBe("Delete thing 23");
    await click(del);
    expect($("confirm-dialog")?.textContent).toContain("Are you sure you want to delete thing 23?");
  });

  it("offers no selection or 'Delete Selected' on a list without deletion, nor to a reader", async () => {
    await mount("/things", { remove: false });
    expect($$("table-row").length).toBe(10);
    expect($$("row-select").length).toBe(0);
    expect($("delete-selected")).toBeNull();
    expect($("new-thing")).not.toBeNull();
    render(null, root);
    root.remove();
    await mount("/things", { remove: true, writable: false });
    expect($$("row-select").length).toBe(0);
    expect($("delete-selected")).toBeNull();
    expect($("new-thing")).toBeNull();
  });
});
