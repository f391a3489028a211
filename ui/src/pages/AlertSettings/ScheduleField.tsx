// The alert setting form's Weekly Schedule: how many half hours are chosen, Clear and the
// 24/7 preset (on the desktop's grid and the phone's day-by-day picker alike), the picker, and
// its message (the 24:00 time error, or no half hour chosen).
import { useLingui } from "@lingui/react/macro";
import { countSelected, emptyWeek, fullWeek } from "../../lib/schedule";
import { type FieldMessage, fid, type SettingForm } from "./rules";
import { SchedulePicker } from "./SchedulePicker";

export function ScheduleField({ form, err }: { form: SettingForm; err: FieldMessage }) {
  const { t } = useLingui();
  const selectedSlots = countSelected(form.values.week);
  const error = err("schedule");
  return (
    <div class="schedule-field" data-testid="field-schedule">
      <div class="schedule-label">
        <span class="field-label" id={fid("schedule-label")}>
          {t`Weekly Schedule`}
          <span class="required" aria-hidden="true">
            {" *"}
          </span>
        </span>
        <span class="field-help" data-testid="schedule-count">
          {t`${selectedSlots} half hours selected`}
        </span>
        <button
          type="button"
          class="button link"
          onClick={() => form.set({ week: fullWeek() }, "schedule")}
          data-testid="schedule-all-week"
        >
          {t`24/7: every half hour`}
        </button>
        <button
          type="button"
          class="button link"
          onClick={() => form.set({ week: emptyWeek() }, "schedule")}
          data-testid="schedule-clear"
        >
          {t`Clear`}
        </button>
      </div>
      <SchedulePicker
        id={fid("schedule")}
        week={form.values.week}
        onChange={(week) => form.set({ week }, "schedule")}
        onTimeError={() => form.setError("schedule", "time")}
        describedBy={error ? fid("schedule-error") : undefined}
      />
      {error ? (
        <span class="field-error" id={fid("schedule-error")} role="alert" data-testid="error-schedule">
          {error}
        </span>
      ) : null}
    </div>
  );
}
