import { describe, expect, it } from 'vitest';
import { formatClock, formatRunTime, isIsoDate, siteToday, toDate } from './time';

describe('formatRunTime', () => {
  it('shows UTC times in Toronto, 24-hour, yyyy/MM/dd HH:mm:ss', () => {
    // EDT (UTC-4) in summer
    expect(formatRunTime('2024-07-01T18:05:09Z')).toBe('2024/07/01 14:05:09');
    // EST (UTC-5) in winter, crossing midnight back a day
    expect(formatRunTime('2024-01-02T03:00:00Z')).toBe('2024/01/01 22:00:00');
    // midnight is 00, not 24
    expect(formatRunTime('2024-01-02T05:00:00Z')).toBe('2024/01/02 00:00:00');
  });
  it('takes a time without zone as UTC, and epoch seconds or milliseconds', () => {
    expect(formatRunTime('2024-07-01 18:05:09')).toBe('2024/07/01 14:05:09');
    expect(formatRunTime(Date.UTC(2024, 6, 1, 18, 5, 9))).toBe('2024/07/01 14:05:09');
    expect(formatRunTime(Date.UTC(2024, 6, 1, 18, 5, 9) / 1000)).toBe('2024/07/01 14:05:09');
  });
  it('is empty for missing or garbage input', () => {
    expect(formatRunTime(null)).toBe('');
    expect(formatRunTime('')).toBe('');
    expect(formatRunTime('not a date')).toBe('');
    expect(toDate('2024-13-45T00:00:00Z')).toBeNull();
  });
});

describe('siteToday', () => {
  it('is the Toronto calendar day, not the UTC one', () => {
    expect(siteToday(new Date('2024-03-10T03:30:00Z'))).toBe('2024-03-09');
    expect(siteToday(new Date('2024-03-10T05:30:00Z'))).toBe('2024-03-10');
  });
});

describe('formatClock', () => {
  it('HH:mm:ss at the site', () => {
    expect(formatClock(new Date('2024-07-01T18:32:05Z'))).toBe('14:32:05');
  });
});

describe('isIsoDate', () => {
  it('accepts real dates only', () => {
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2023-02-29')).toBe(false);
    expect(isIsoDate('2024-2-1')).toBe(false);
    expect(isIsoDate('')).toBe(false);
  });
});
