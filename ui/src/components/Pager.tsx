// The list footer (spec §2): rows per page (10, 20, 50, 100), a page-number select with
// previous and next, and '1 - 10 of N items'.
import { useLingui } from "@lingui/react/macro";
import { useId } from "react";
import { ChevronDownIcon } from "./icons";
import { PAGE_SIZES, pageCount, rangeOf } from "./paging";

export interface PagerProps {
  /** 1-based. */
  page: number;
  size: number;
  total: number;
  onPage: (page: number) => void;
  onSize: (size: number) => void;
  /** With it, the size select is left out (a list of a fixed page size). */
  fixedSize?: boolean;
}

export function Pager({ page, size, total, onPage, onSize, fixedSize }: PagerProps) {
  const { t, i18n } = useLingui();
  const id = useId();
  const pages = pageCount(total, size);
  const { from, to } = rangeOf(page, size, total);
  const first = i18n.number(from);
  const last = i18n.number(to);
  const count = i18n.number(total);
  return (
    <div class="pager" data-testid="pager">
      {fixedSize ? null : (
        <label class="pager-size" for={`${id}-size`}>
          <span>{t`Items per page`}</span>
          <select id={`${id}-size`} value={size} onChange={(e) => onSize(Number(e.currentTarget.value))}>
            {PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      )}
      <div class="pager-pages">
        <button
          type="button"
          class="icon-button"
          disabled={page <= 1}
          onClick={() => onPage(page - 1)}
          aria-label={t`Previous page`}
          data-testid="pager-prev"
        >
          <ChevronDownIcon size={16} class="rotate-90" />
        </button>
        <select
          value={page}
          aria-label={t`Page`}
          onChange={(e) => onPage(Number(e.currentTarget.value))}
          data-testid="pager-page"
        >
          {Array.from({ length: pages }, (_, i) => (
            <option key={i + 1} value={i + 1}>
              {i + 1}
            </option>
          ))}
        </select>
        <button
          type="button"
          class="icon-button"
          disabled={page >= pages}
          onClick={() => onPage(page + 1)}
          aria-label={t`Next page`}
          data-testid="pager-next"
        >
          <ChevronDownIcon size={16} class="rotate-270" />
        </button>
      </div>
      <span class="pager-range" data-testid="pager-range">
        {t`${first} - ${last} of ${count} items`}
      </span>
    </div>
  );
}
