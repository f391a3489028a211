// @vitest-environment jsdom
// frappe-charts' tooltip (SvgTip) writes its text with innerHTML: the console's charts escape
// what reaches it. The real SvgTip, hostile names, nothing read as markup.
import SvgTip from "frappe-charts/src/js/objects/SvgTip";
import { describe, expect, it, vi } from "vitest";
import { escapeTooltip } from "./tooltip";

// frappe-charts' constants module reads a constant before it is declared when run unbundled;
// SvgTip needs one value of it.
vi.mock("frappe-charts/src/js/utils/constants", () => ({ TOOLTIP_POINTER_TRIANGLE_HEIGHT: 5 }));

const HOSTILE = `X"'><img src=x onerror=alert(1)>`;

function tip() {
  const parent = document.createElement("div");
  document.body.appendChild(parent);
  const t = new SvgTip({ parent, colors: ["#000"] });
  return t;
}

describe("escapeTooltip", () => {
  it("without it, frappe-charts' tooltip reads a name as markup (the defect)", () => {
    const t = tip();
    t.setValues(0, 0, { name: HOSTILE, value: "" }, []);
    expect(t.container.querySelector("img")).not.toBeNull();
  });

  it("shows title, value and list items as text, whoever calls setValues", () => {
    const t = tip();
    escapeTooltip(t);
    t.setValues(
      0,
      0,
      { name: HOSTILE, value: "<b>7</b>" },
      [
        { title: `<svg onload=alert(2)>`, value: 3 },
        { title: "Pass", value: 0 },
        { title: "x", value: "<i>1</i>", formatted: "<u>1</u>" },
      ],
      1,
    );
    expect(t.container.querySelectorAll("img, svg, b, i, u").length).toBe(0);
    const title = t.container.querySelector(".title");
    expect(title?.textContent).toBe(`${HOSTILE}<b>7</b>`);
    const items = [...t.container.querySelectorAll(".data-point-list li")].map((l) =>
      l.textContent?.replace(/\s+/g, " ").trim(),
    );
    expect(items).toEqual(["3 <svg onload=alert(2)>", "0 Pass", "<u>1</u> x"]);
  });
});
