// The schedule picker (spec §2 'Alert setting form', §5 'Schedule'): Monday to Sunday by 48
// half-hour slots, then a 24:00 column that cannot be selected (choosing it raises the time
// error). A click toggles a slot; a drag with a mouse, a pen or a finger paints the rectangle
// between where it started and where it is, on when the first slot was off and off when it
// was on. The keyboard reaches every slot: one slot of the grid is in the tab order (a roving
// tabindex), the arrow keys, Home and End move, Space or Enter toggles.
//
// On a phone the grid's 336 slots would be 6 px wide: the phone picks a day, then that day's
// 48 half hours as buttons a finger can tap, with 'Whole day' and 'Clear day'. The 24:00 column is the grid's only (nothing there to choose).
import { useLingui } from "@lingui/react/macro";
import { useRef, useState } from "react";
import { useIsMobile } from "../../lib/media";
import { DAYS, paint, SLOTS, timeOf, type Week } from "../../lib/schedule";

interface Cell {
  day: number;
  slot: number;
}

export interface SchedulePickerProps {
  id: string;
  week: Week;
  onChange: (week: Week) => void;
  /** The 24:00 slot was chosen. */
  onTimeError: () => void;
  /** The message id that describes the picker's error, when there is one. */
  describedBy?: string;
}

/** The cell under a point (a finger's move stays targeted at where it started). */
function cellAt(x: number, y: number): Cell | undefined {
  const el = document.elementFromPoint(x, y)?.closest<HTMLElement>("[data-slot]");
  if (!el) return undefined;
  return { day: Number(el.dataset.day), slot: Number(el.dataset.slot) };
}

export function SchedulePicker(props: SchedulePickerProps) {
  return useIsMobile() ? <DayByDayPicker {...props} /> : <GridPicker {...props} />;
}

/** The phone's picker: one day at a time, each half hour a button. */
function DayByDayPicker({ id, week, onChange, describedBy }: SchedulePickerProps) {
  const { t } = useLingui();
  const days = [t`Monday`, t`Tuesday`, t`Wednesday`, t`Thursday`, t`Friday`, t`Saturday`, t`Sunday`];
  const short = [t`Mon`, t`Tue`, t`Wed`, t`Thu`, t`Fri`, t`Sat`, t`Sun`];
  const [day, setDay] = useState(0);
  const slots = week[day];
  const name = days[day];
  const setDayTo = (on: boolean) => onChange(paint(week, { day, slot: 0 }, { day, slot: SLOTS - 1 }, on));
  return (
    <fieldset
      id={id}
      class="schedule-phone"
      aria-label={t`Weekly Schedule`}
      aria-describedby={describedBy}
      data-testid="schedule-phone"
    >
      <fieldset class="schedule-phone-days" aria-label={t`Day`}>
        {short.map((label, d) => {
          const count = week[d].filter(Boolean).length;
          return (
            <button
              type="button"
              key={label}
              class={count ? "schedule-phone-day has-slots" : "schedule-phone-day"}
              aria-pressed={d === day}
              onClick={() => setDay(d)}
              data-testid={`schedule-phone-day-${d}`}
            >
              <span aria-hidden="true">{label}</span>
              <span class="visually-hidden">{days[d]}</span>
            </button>
          );
        })}
      </fieldset>
      <div class="schedule-phone-actions">
        <span class="schedule-phone-name">{name}</span>
        <button type="button" class="button link" onClick={() => setDayTo(true)} data-testid="schedule-phone-all">
          {t`Whole day`}
        </button>
        <button type="button" class="button link" onClick={() => setDayTo(false)} data-testid="schedule-phone-none">
          {t`Clear day`}
        </button>
      </div>
      <fieldset class="schedule-phone-slots" aria-label={name} data-testid="schedule-phone-slots">
        {slots.map((on, s) => (
          <button
            type="button"
            key={s}
            class={on ? "schedule-phone-slot on" : "schedule-phone-slot"}
            aria-pressed={on}
            onClick={() => onChange(paint(week, { day, slot: s }, { day, slot: s }, !on))}
            data-slot={s}
            data-testid="schedule-phone-slot"
          >
            {timeOf(s)}
          </button>
        ))}
      </fieldset>
    </fieldset>
  );
}

/** The desktop's grid: the week at once, dragged, clicked or driven from the keyboard. */
function GridPicker({ id, week, onChange, onTimeError, describedBy }: SchedulePickerProps) {
  const { t } = useLingui();
  const days = [t`Monday`, t`Tuesday`, t`Wednesday`, t`Thursday`, t`Friday`, t`Saturday`, t`Sunday`];
  const short = [t`Mon`, t`Tue`, t`Wed`, t`Thu`, t`Fri`, t`Sat`, t`Sun`];
  const [focus, setFocus] = useState<Cell>({ day: 0, slot: 0 });
  const [drag, setDrag] = useState<{ anchor: Cell; at: Cell; on: boolean } | null>(null);
  const grid = useRef<HTMLTableElement>(null);
  const shown = drag ? paint(week, drag.anchor, drag.at, drag.on) : week;

  const focusCell = (c: Cell) => {
    setFocus(c);
    grid.current?.querySelector<HTMLElement>(`[data-day="${c.day}"][data-slot="${c.slot}"]`)?.focus();
  };

  const toggle = (c: Cell) => {
    if (c.slot >= SLOTS) {
      onTimeError();
      return;
    }
    onChange(paint(week, c, c, !week[c.day][c.slot]));
  };

  const onPointerDown = (e: PointerEvent) => {
    if (e.button !== 0) return;
    const c = cellAt(e.clientX, e.clientY);
    if (!c) return;
    e.preventDefault();
    setFocus(c);
    if (c.slot >= SLOTS) {
      onTimeError();
      return;
    }
    grid.current?.setPointerCapture?.(e.pointerId);
    setDrag({ anchor: c, at: c, on: !week[c.day][c.slot] });
  };

  const onPointerMove = (e: PointerEvent) => {
    if (!drag) return;
    const c = cellAt(e.clientX, e.clientY);
    if (!c || (c.day === drag.at.day && c.slot === drag.at.slot)) return;
    setDrag({ ...drag, at: { day: c.day, slot: Math.min(c.slot, SLOTS - 1) } });
  };

  const onPointerUp = () => {
    if (!drag) return;
    onChange(paint(week, drag.anchor, drag.at, drag.on));
    setFocus(drag.at);
    setDrag(null);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const { day, slot } = focus;
    const moves: Record<string, Cell> = {
      ArrowLeft: { day, slot: Math.max(0, slot - 1) },
      ArrowRight: { day, slot: Math.min(SLOTS, slot + 1) },
      ArrowUp: { day: Math.max(0, day - 1), slot },
      ArrowDown: { day: Math.min(DAYS - 1, day + 1), slot },
      Home: { day, slot: 0 },
      End: { day, slot: SLOTS },
    };
    const next = moves[e.key];
    if (next) {
      e.preventDefault();
      focusCell(next);
    } else if (e.key === " " || e.key === "Enter") {
      e.preventDefault();
      toggle(focus);
    }
  };

  const columns = Array.from({ length: SLOTS + 1 }, (_, s) => s);
  return (
    <div class="schedule-scroll">
      <table
        ref={grid}
        id={id}
        class={drag ? "schedule-grid dragging" : "schedule-grid"}
        // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the ARIA data grid pattern (a table with role grid) makes the slots operable from the keyboard
        role="grid"
        aria-label={t`Weekly Schedule`}
        aria-multiselectable="true"
        aria-describedby={describedBy}
        data-testid="schedule-grid"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => setDrag(null)}
        onKeyDown={onKeyDown}
      >
        <thead>
          <tr class="schedule-head">
            <th scope="col" class="schedule-corner">
              <span class="visually-hidden">{t`Day`}</span>
            </th>
            {columns.map((s) => (
              <th scope="col" class="schedule-time" key={s}>
                <span aria-hidden="true">{s % 2 === 0 ? String(s / 2) : ""}</span>
                <span class="visually-hidden">{timeOf(s)}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((slots, d) => (
            <tr key={d} data-testid={`schedule-day-${d + 1}`}>
              <th scope="row" class="schedule-day">
                <span aria-hidden="true">{short[d]}</span>
                <span class="visually-hidden">{days[d]}</span>
              </th>
              {columns.map((s) => {
                const end = s >= SLOTS;
                const on = !end && slots[s];
                const here = focus.day === d && focus.slot === s;
                return (
                  <td
                    key={s}
                    // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: a slot of the data grid (selected or not)
                    role="gridcell"
                    class={end ? "schedule-cell end" : on ? "schedule-cell on" : "schedule-cell"}
                    data-day={d}
                    data-slot={s}
                    tabIndex={here ? 0 : -1}
                    aria-selected={on}
                    aria-label={end ? `${days[d]} 24:00` : `${days[d]} ${timeOf(s)}–${timeOf(s + 1)}`}
                    onFocus={() => setFocus({ day: d, slot: s })}
                  />
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
