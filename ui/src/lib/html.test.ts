// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { escapeHtml } from "./html";

describe("escapeHtml", () => {
  it("turns the characters that make markup into entities", () => {
    expect(escapeHtml(`X"'><img src=x onerror=alert(1)>`)).toBe("X&quot;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;");
    expect(escapeHtml("<script>a&&b</script>")).toBe("&lt;script&gt;a&amp;&amp;b&lt;/script&gt;");
    expect(escapeHtml("`x`")).toBe("&#96;x&#96;");
  });

  it("escapes an entity's ampersand, so it shows as typed", () => {
    expect(escapeHtml("&lt;b&gt;")).toBe("&amp;lt;b&amp;gt;");
  });

  it("leaves other text alone (accents, bidi and control characters, formula prefixes)", () => {
    const s = "Échec \u202Egnp.exe \u0007 =SUM(1) +1 -1 @x 42";
    expect(escapeHtml(s)).toBe(s);
  });

  it("makes numbers strings and null or undefined empty", () => {
    expect(escapeHtml(0)).toBe("0");
    expect(escapeHtml(12.5)).toBe("12.5");
    expect(escapeHtml(null)).toBe("");
    expect(escapeHtml(undefined)).toBe("");
  });

  it("gives back the text when a browser reads the result as HTML", () => {
    const hostile = `X"'><img src=x onerror=alert(1)><svg onload=alert(2)>&amp;`;
    const el = document.createElement("div");
    el.innerHTML = escapeHtml(hostile);
    expect(el.textContent).toBe(hostile);
    expect(el.children.length).toBe(0);
  });
});
