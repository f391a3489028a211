import { describe, expect, it } from "vitest";
import { compareCells, fold, isListPage, itemsOf, toListPage } from "./listPage";

interface Row {
  id: number;
  name: string;
  kind?: string;
}

const rows: Row[] = [
  { id: 1, name: "Zèbre", kind: "a" },
  { id: 2, name: "alpha", kind: "b" },
  { id: 3, name: "Beta 10", kind: "a" },
  { id: 4, name: "beta 9" },
  { id: 5, name: "Gamma", kind: "b" },
];

describe("toListPage", () => {
  it("uses a page as is, whatever the params", () => {
    const page = { content: [rows[0]], totalElements: 42 };
    expect(toListPage(page, { pageNo: 3, pageSize: 10, search: "x", searchIn: (r) => [r.name] })).toEqual(page);
  });

  it("is undefined without an answer, and empty for an answer that is no list", () => {
    expect(toListPage(undefined, { pageNo: 0, pageSize: 10 })).toBeUndefined();
    expect(toListPage({ unexpected: true } as never, { pageNo: 0, pageSize: 10 })).toEqual({
      content: [],
      totalElements: 0,
    });
  });

  it("pages an array in the browser, the total being the whole list's", () => {
    const p1 = toListPage(rows, { pageNo: 0, pageSize: 2 });
    expect(p1).toEqual({ content: rows.slice(0, 2), totalElements: 5 });
    expect(toListPage(rows, { pageNo: 2, pageSize: 2 })?.content).toEqual([rows[4]]);
    expect(toListPage(rows, { pageNo: 9, pageSize: 2 })?.content).toEqual([]);
  });

  it("searches ignoring case and accents, in the values the list names", () => {
    const p = toListPage(rows, { pageNo: 0, pageSize: 10, search: " zebre ", searchIn: (r) => [r.name, r.id] });
    expect(p?.content.map((r) => r.id)).toEqual([1]);
    expect(toListPage(rows, { pageNo: 0, pageSize: 10, search: "5", searchIn: (r) => [r.id] })?.totalElements).toBe(1);
  });

  it("filters, then sorts numerically and in both directions with empty values last", () => {
    const byName = toListPage(rows, { pageNo: 0, pageSize: 10, sort: { field: "name", dir: "asc" } });
    expect(byName?.content.map((r) => r.name)).toEqual(["alpha", "beta 9", "Beta 10", "Gamma", "Zèbre"]);
    const byKindDesc = toListPage(rows, { pageNo: 0, pageSize: 10, sort: { field: "kind", dir: "desc" } });
    expect(byKindDesc?.content.map((r) => r.id)).toEqual([2, 5, 1, 3, 4]);
    const filtered = toListPage(rows, {
      pageNo: 0,
      pageSize: 1,
      filter: (r) => r.kind === "a",
      sort: { field: "id", dir: "desc" },
    });
    expect(filtered).toEqual({ content: [rows[2]], totalElements: 2 });
  });

  it("reads a sort field through sortValue when given", () => {
    const p = toListPage(rows, {
      pageNo: 0,
      pageSize: 10,
      sort: { field: "len", dir: "asc" },
      sortValue: (r) => -r.id,
    });
    expect(p?.content[0].id).toBe(5);
  });
});

describe("helpers", () => {
  it("tells a page from an array", () => {
    expect(isListPage({ content: [], totalElements: 0 })).toBe(true);
    expect(isListPage([])).toBe(false);
    expect(itemsOf({ content: [1], totalElements: 9 })).toEqual([1]);
    expect(itemsOf([2])).toEqual([2]);
    expect(itemsOf(undefined)).toEqual([]);
  });

  it("folds and compares", () => {
    expect(fold("Écoute")).toBe("ecoute");
    expect(compareCells(2, 10)).toBeLessThan(0);
    expect(compareCells(null, "a")).toBeGreaterThan(0);
    expect(compareCells("item 2", "item 10")).toBeLessThan(0);
  });
});
