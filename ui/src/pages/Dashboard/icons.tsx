// Icons of the dashboard (24x24 grid, drawn with the current colour, decorative).
import { Svg } from "../../components/icons";

type P = { size?: number };

/** Simulated caller: a person with a headset. */
export const CallerIcon = (p: P) => (
  <Svg {...p}>
    <circle cx="12" cy="8" r="3.5" />
    <path d="M5 20.5c.8-3.6 3.5-5.5 7-5.5s6.2 1.9 7 5.5" />
    <path d="M7.5 8a4.5 4.5 0 0 1 9 0" />
  </Svg>
);

/** Telco: a radio mast. */
export const TelcoIcon = (p: P) => (
  <Svg {...p}>
    <path d="M12 10.5 8 21M12 10.5 16 21M9.5 17h5" />
    <circle cx="12" cy="9" r="1.5" />
    <path d="M8.2 5.2a5.4 5.4 0 0 0 0 7.6M15.8 5.2a5.4 5.4 0 0 1 0 7.6M5.6 2.8a9 9 0 0 0 0 12.4M18.4 2.8a9 9 0 0 1 0 12.4" />
  </Svg>
);

/** Internet: a globe. */
export const InternetIcon = (p: P) => (
  <Svg {...p}>
    <circle cx="12" cy="12" r="8.5" />
    <path d="M3.5 12h17M12 3.5c2.3 2.4 3.5 5.2 3.5 8.5s-1.2 6.1-3.5 8.5c-2.3-2.4-3.5-5.2-3.5-8.5s1.2-6.1 3.5-8.5z" />
  </Svg>
);

/** IVR: a keypad. */
export const IvrIcon = (p: P) => (
  <Svg {...p}>
    <rect x="5" y="2.5" width="14" height="19" rx="2.5" />
    <path
      d="M9 7h.01M12 7h.01M15 7h.01M9 10.5h.01M12 10.5h.01M15 10.5h.01M9 14h.01M12 14h.01M15 14h.01M12 17.5h.01"
      stroke-width="2.4"
    />
  </Svg>
);

/** Chatbot: a robot head. */
export const ChatbotIcon = (p: P) => (
  <Svg {...p}>
    <rect x="4.5" y="7.5" width="15" height="11" rx="3" />
    <path d="M12 7.5V4.5M10.5 3.5h3M9 12.5h.01M15 12.5h.01M9.5 15.5h5M2.5 12v2.5M21.5 12v2.5" />
  </Svg>
);

/** Agent: a headset. */
export const AgentIcon = (p: P) => (
  <Svg {...p}>
    <path d="M4.5 14v-2a7.5 7.5 0 0 1 15 0v2" />
    <rect x="3.5" y="13" width="3.5" height="5.5" rx="1.2" />
    <rect x="17" y="13" width="3.5" height="5.5" rx="1.2" />
    <path d="M19 18.5c0 1.5-1.5 2.5-4 2.5h-2" />
  </Svg>
);

/** A component database. */
export const DatabaseIcon = (p: P) => (
  <Svg {...p}>
    <ellipse cx="12" cy="5.5" rx="7" ry="2.5" />
    <path d="M5 5.5v13c0 1.4 3.1 2.5 7 2.5s7-1.1 7-2.5v-13M5 12c0 1.4 3.1 2.5 7 2.5s7-1.1 7-2.5" />
  </Svg>
);

/** An agent phone. */
export const AgentPhoneIcon = (p: P) => (
  <Svg {...p}>
    <path d="M5 4.5h3.2l1.6 4-2 1.3a10 10 0 0 0 4.4 4.4l1.3-2 4 1.6V17a2.5 2.5 0 0 1-2.5 2.5A14.5 14.5 0 0 1 2.5 7 2.5 2.5 0 0 1 5 4.5z" />
  </Svg>
);

export const ExpandIcon = (p: P) => (
  <Svg {...p}>
    <path d="M14 4h6v6M10 20H4v-6M20 4l-7 7M4 20l7-7" />
  </Svg>
);

export const RefreshIcon = (p: P) => (
  <Svg {...p}>
    <path d="M20 11a8 8 0 0 0-14.6-4.5M4 4v3.5h3.5M4 13a8 8 0 0 0 14.6 4.5M20 20v-3.5h-3.5" />
  </Svg>
);

export const ArrowIcon = ({ dir, size = 14 }: { dir: "asc" | "desc" | "none"; size?: number }) => (
  <svg class="icon sort-arrow" width={size} height={size} viewBox="0 0 14 14" aria-hidden="true" focusable="false">
    {dir === "none" ? (
      <path d="M4 5.5 7 2.5l3 3M4 8.5l3 3 3-3" fill="none" stroke="currentColor" stroke-width="1.4" opacity="0.5" />
    ) : dir === "asc" ? (
      <path d="M7 11.5v-9M3.5 6 7 2.5 10.5 6" fill="none" stroke="currentColor" stroke-width="1.6" />
    ) : (
      <path d="M7 2.5v9M3.5 8 7 11.5 10.5 8" fill="none" stroke="currentColor" stroke-width="1.6" />
    )}
  </svg>
);

export const ChevronRight = (p: P) => (
  <Svg {...p}>
    <path d="m9 5 7 7-7 7" />
  </Svg>
);
