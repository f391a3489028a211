import { describe, expect, it } from "vitest";
import { listOf, pagingOf, searchedListOf } from "./listParams";

const q = (s: string) => new URLSearchParams(s);
const FIELDS = ["id", "name", "lastModifiedTime"] as const;
type Field = (typeof FIELDS)[number];
const BY_ID_DESC = { field: "id" as Field, dir: "desc" as const };

describe("pagingOf", () => {
  it("reads the 1-based page and the size, the server's page 0-based", () => {
    expect(pagingOf(q("page=3&size=50"))).toEqual({ page: 3, pageNo: 2, pageSize: 50 });
  });
  it("falls back to the first page of 10 for anything else", () => {
    expect(pagingOf(q(""))).toEqual({ page: 1, pageNo: 0, pageSize: 10 });
    expect(pagingOf(q("page=-2&size=7"))).toEqual({ page: 1, pageNo: 0, pageSize: 10 });
    expect(pagingOf(q("page=abc&size=abc"))).toEqual({ page: 1, pageNo: 0, pageSize: 10 });
  });
});

describe("searchedListOf", () => {
  it("reads the search and the sort", () => {
    expect(searchedListOf(q("search=ab%20c&sort=name,asc&page=2"), FIELDS, BY_ID_DESC)).toEqual({
      page: 2,
      pageNo: 1,
      pageSize: 10,
      search: "ab c",
      sort: { field: "name", dir: "asc" },
    });
  });
  it("takes the screen's default sort when there is none", () => {
    expect(searchedListOf(q(""), FIELDS, BY_ID_DESC).sort).toEqual({ field: "id", dir: "desc" });
    expect(searchedListOf(q("sort="), FIELDS, { field: "name", dir: "asc" }).sort).toEqual({
      field: "name",
      dir: "asc",
    });
    expect(searchedListOf(q(""), FIELDS, BY_ID_DESC).search).toBe("");
  });
  it("replaces an unknown field or direction on its own, keeping the other part", () => {
    expect(searchedListOf(q("sort=password,asc"), FIELDS, BY_ID_DESC).sort).toEqual({ field: "id", dir: "asc" });
    expect(searchedListOf(q("sort=name,up"), FIELDS, BY_ID_DESC).sort).toEqual({ field: "name", dir: "desc" });
    expect(searchedListOf(q("sort=name,DESC"), FIELDS, { field: "id", dir: "asc" }).sort).toEqual({
      field: "name",
      dir: "asc",
    });
    expect(searchedListOf(q("sort=name"), FIELDS, BY_ID_DESC).sort).toEqual({ field: "name", dir: "desc" });
  });
});

describe("listOf", () => {
  it("splits a comma-separated parameter, dropping empty parts", () => {
    expect(listOf("a,b,,c")).toEqual(["a", "b", "c"]);
    expect(listOf("")).toEqual([]);
    expect(listOf(null)).toEqual([]);
  });
});
