// A search box that reports its text 500 ms after the last key (spec §9).
import { useLingui } from "@lingui/react/macro";
import { useEffect, useMemo, useRef, useState } from "react";
import { debounce, SEARCH_DEBOUNCE_MS } from "./debounce";

export interface SearchBoxProps {
  value: string;
  onSearch: (text: string) => void;
  placeholder?: string;
  delayMs?: number;
}

export function SearchBox({ value, onSearch, placeholder, delayMs = SEARCH_DEBOUNCE_MS }: SearchBoxProps) {
  const { t } = useLingui();
  const [text, setText] = useState(value);
  const latest = useRef(onSearch);
  latest.current = onSearch;
  const later = useMemo(() => debounce<string>((v) => latest.current(v), delayMs), [delayMs]);
  useEffect(() => () => later.cancel(), [later]);
  useEffect(() => setText(value), [value]);
  return (
    <input
      type="search"
      class="search-box"
      value={text}
      placeholder={placeholder ?? t`Search`}
      aria-label={placeholder ?? t`Search`}
      onInput={(e) => {
        const v = e.currentTarget.value;
        setText(v);
        later(v.trim());
      }}
      data-testid="search-box"
    />
  );
}
