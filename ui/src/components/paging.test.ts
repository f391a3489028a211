import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, PAGE_SIZES, pageCount, pageOf, pageSizeOf, rangeOf } from "./paging";

describe("paging", () => {
  it("offers 10, 20, 50 and 100 rows, 10 by default", () => {
    expect(PAGE_SIZES).toEqual([10, 20, 50, 100]);
    expect(DEFAULT_PAGE_SIZE).toBe(10);
    expect(pageSizeOf("50")).toBe(50);
    expect(pageSizeOf("7")).toBe(10);
    expect(pageSizeOf(undefined)).toBe(10);
  });

  it("counts pages, at least one", () => {
    expect(pageCount(0, 10)).toBe(1);
    expect(pageCount(10, 10)).toBe(1);
    expect(pageCount(11, 10)).toBe(2);
  });

  it("reads a page number within the pages", () => {
    expect(pageOf("3", 5)).toBe(3);
    expect(pageOf("9", 5)).toBe(5);
    expect(pageOf("x")).toBe(1);
    expect(pageOf("0")).toBe(1);
  });

  it("gives the range text's numbers: '1 - 10 of N items'", () => {
    expect(rangeOf(1, 10, 35)).toEqual({ from: 1, to: 10 });
    expect(rangeOf(4, 10, 35)).toEqual({ from: 31, to: 35 });
    expect(rangeOf(1, 10, 0)).toEqual({ from: 0, to: 0 });
  });
});
