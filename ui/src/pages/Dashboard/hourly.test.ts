import { describe, expect, it } from 'vitest';
import { hourLabels, hourOf, padHours, timeSlotLabel } from './hourly';

describe('hourLabels', () => {
  it('is 00 to 23', () => {
    const l = hourLabels();
    expect(l).toHaveLength(24);
    expect(l[0]).toBe('00');
    expect(l[9]).toBe('09');
    expect(l[23]).toBe('23');
  });
});

describe('timeSlotLabel', () => {
  it('reads start - end of the hour', () => {
    expect(timeSlotLabel(14)).toBe('14:00 - 15:00');
    expect(timeSlotLabel(0)).toBe('00:00 - 01:00');
    expect(timeSlotLabel(9)).toBe('09:00 - 10:00');
    expect(timeSlotLabel(23)).toBe('23:00 - 00:00');
  });
});

describe('hourOf', () => {
  it('reads hour indexes, local times as written, zoned times in Toronto', () => {
    expect(hourOf(0)).toBe(0);
    expect(hourOf(23)).toBe(23);
    expect(hourOf('7')).toBe(7);
    expect(hourOf('2024-07-01 14:00:00')).toBe(14);
    expect(hourOf('2024-07-01T14:00')).toBe(14);
    expect(hourOf('2024-07-01T18:00:00Z')).toBe(14);
    expect(hourOf('2024-07-01T14:00:00-04:00')).toBe(14);
    expect(hourOf(Date.UTC(2024, 0, 1, 15))).toBe(10);
  });
  it('is null for garbage', () => {
    expect(hourOf('24')).toBeNull();
    expect(hourOf('soon')).toBeNull();
    expect(hourOf(null)).toBeNull();
    expect(hourOf(-1)).toBeNull();
    expect(hourOf(Number.NaN)).toBeNull();
  });
});

describe('padHours', () => {
  it('always gives 24 slots, zero where the API gave nothing', () => {
    const s = padHours([{ hourly: '2024-07-01 03:00:00', successCount: 2, warningCount: 1, failureCount: 0 }]);
    expect(s).toHaveLength(24);
    expect(s[3]).toEqual({ success: 2, warning: 1, failure: 0 });
    expect(s.filter((_, i) => i !== 3).every((x) => x.success + x.warning + x.failure === 0)).toBe(true);
    expect(padHours(null)).toHaveLength(24);
    expect(padHours([])).toHaveLength(24);
  });
  it('adds entries of the same hour and drops unreadable ones and bad counts', () => {
    const s = padHours([
      { hourly: 5, successCount: 1, warningCount: 0, failureCount: 1 },
      { hourly: '2024-07-01 05:00:00', successCount: 3, warningCount: null, failureCount: -4 },
      { hourly: 'garbage', successCount: 100 },
    ]);
    expect(s[5]).toEqual({ success: 4, warning: 0, failure: 1 });
    expect(s.reduce((a, x) => a + x.success, 0)).toBe(4);
  });
});
