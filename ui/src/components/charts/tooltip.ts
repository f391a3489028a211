// The one door to frappe-charts' tooltip for text: SvgTip.fill writes the title, the values and
// each list item with innerHTML, so whatever reaches it is escaped here first.
import type { SvgTip as BaseTip } from "frappe-charts/src/js/charts/BaseChart";
import { escapeHtml } from "../../lib/html";

type SetValues = BaseTip["setValues"];

/**
 * Makes `tip.setValues` escape every text it is given (title name and value, each list item's
 * title, value and formatted value), since SvgTip.fill writes them with innerHTML.
 */
export function escapeTooltip(tip: BaseTip): void {
  const set: SetValues = tip.setValues.bind(tip);
  tip.setValues = (x, y, title = { name: "", value: "" }, list = [], index = -1) =>
    set(
      x,
      y,
      { ...title, name: escapeHtml(title.name), value: escapeHtml(title.value) },
      list.map((l) => ({
        ...l,
        title: escapeHtml(l.title),
        value: escapeHtml(l.value),
        formatted: l.formatted === undefined ? undefined : escapeHtml(l.formatted),
      })),
      index,
    );
}
