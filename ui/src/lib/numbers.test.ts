import { describe, expect, it } from "vitest";
import { fixed } from "./numbers";

describe("fixed", () => {
  it("writes the decimals the spec asks for, with the language's separator", () => {
    expect(fixed(1.075, 2, "en")).toBe("1.08");
    expect(fixed(1.075, 2, "fr")).toBe("1,08");
    expect(fixed(3.94, 1, "fr")).toBe("3,9");
    expect(fixed(5, 2, "en")).toBe("5.00");
  });
});
