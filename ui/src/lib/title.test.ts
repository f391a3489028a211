import { describe, expect, it } from "vitest";
import { tabTitle } from "./title";

describe("tabTitle", () => {
  it("names the page, then the product", () => {
    expect(tabTitle("Alertes")).toBe("Alertes – cxwatch");
    expect(tabTitle("✖ IVR failing · Dashboard")).toBe("✖ IVR failing · Dashboard – cxwatch");
  });
  it("is the product alone without a name", () => {
    expect(tabTitle("")).toBe("cxwatch");
    expect(tabTitle("  ")).toBe("cxwatch");
  });
});
