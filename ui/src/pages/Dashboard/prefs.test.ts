import { describe, expect, it } from "vitest";
import {
  initialChannel,
  initialFilter,
  type KeyValueStore,
  reconcileGroups,
  STORAGE_KEYS,
  saveChannel,
  saveFilter,
  saveGroups,
  storedGroups,
} from "./prefs";

function memory(init: Record<string, string> = {}): KeyValueStore & { data: Record<string, string> } {
  const data = { ...init };
  return {
    data,
    getItem: (k) => (k in data ? data[k] : null),
    setItem: (k, v) => {
      data[k] = v;
    },
  };
}

describe("channel", () => {
  it("defaults to Digital on a phone and Voice on a desktop", () => {
    expect(initialChannel(true, memory())).toBe("web");
    expect(initialChannel(false, memory())).toBe("voice");
  });
  it("prefers the stored choice, ignoring garbage", () => {
    const s = memory();
    saveChannel("web", s);
    expect(initialChannel(false, s)).toBe("web");
    expect(initialChannel(false, memory({ [STORAGE_KEYS.channel]: '"fax"' }))).toBe("voice");
    expect(initialChannel(true, memory({ [STORAGE_KEYS.channel]: "{bad json" }))).toBe("web");
  });
});

describe("filter", () => {
  it("defaults to all three rates and round-trips", () => {
    const s = memory();
    expect(initialFilter(s)).toEqual([0, 1, 2]);
    saveFilter([2], s);
    expect(initialFilter(s)).toEqual([2]);
    saveFilter([], s);
    expect(initialFilter(s)).toEqual([]);
  });
});

describe("groups", () => {
  it("null when never chosen; round-trips; keeps integers only", () => {
    const s = memory();
    expect(storedGroups(s)).toBeNull();
    saveGroups([3, 1], s);
    expect(storedGroups(s)).toEqual([3, 1]);
    expect(storedGroups(memory({ [STORAGE_KEYS.groups]: '[1,"x",2.5,4]' }))).toEqual([1, 4]);
  });
  it("reconciles with the group list", () => {
    const list = [{ id: 1 }, { id: 2 }, { id: 3 }];
    expect(reconcileGroups(list, null)).toEqual([1, 2, 3]);
    expect(reconcileGroups(list, [3, 9, 1])).toEqual([1, 3]);
    expect(reconcileGroups(list, [])).toEqual([]);
  });
});
