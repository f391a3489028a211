import { describe, expect, it, vi } from "vitest";
import { deleteOneByOne, idsToDelete } from "./deleteSelected";

describe("Delete Selected", () => {
  it("deletes the selection, or the single id when one is given", () => {
    expect(idsToDelete([3, 4])).toEqual([3, 4]);
    expect(idsToDelete([3, 4], 9)).toEqual([9]);
    expect(idsToDelete([], 9)).toEqual([9]);
  });

  it("deletes one after another, never two at once", async () => {
    let running = 0;
    const order: number[] = [];
    const del = vi.fn(async (id: number) => {
      running += 1;
      expect(running).toBe(1);
      await new Promise((r) => setTimeout(r, 1));
      order.push(id);
      running -= 1;
      return true;
    });
    expect(await deleteOneByOne([1, 2, 3], del)).toEqual({ deleted: [1, 2, 3] });
    expect(order).toEqual([1, 2, 3]);
  });

  it("stops at the first answer without success", async () => {
    const del = vi.fn(async (id: number) => id !== 2);
    expect(await deleteOneByOne([1, 2, 3], del)).toEqual({ deleted: [1], failed: 2 });
    expect(del).toHaveBeenCalledTimes(2);
  });

  it("stops at a failed call, keeping its error", async () => {
    const boom = new Error("403");
    const del = vi.fn(async (id: number) => {
      if (id === 1) throw boom;
      return true;
    });
    expect(await deleteOneByOne([1, 2], del)).toEqual({ deleted: [], failed: 1, error: boom });
    expect(del).toHaveBeenCalledTimes(1);
  });
});
