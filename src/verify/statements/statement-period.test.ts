import { describe, expect, it } from 'vitest';
import { isTimeZoneName, latestClose, localTime, monthSpans, offsetSpans, periodBoundaries } from './statement-period.js';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('statement periods', () => {
  it('takes IANA zone names and refuses offsets, abbreviations of nothing and made-up names', () => {
    for (const name of [
      'UTC',
      'America/New_York',
      'Asia/Kolkata',
      'Pacific/Chatham',
      'Australia/Lord_Howe',
      'Etc/GMT+5',
      'America/Argentina/Buenos_Aires',
    ]) {
      expect(isTimeZoneName(name), name).toBe(true);
    }
    for (const name of [
      '',
      '+05:30',
      'UTC+2',
      'local',
      'system',
      'Mars/Olympus_Mons',
      'America/',
      '/UTC',
      'America//New_York',
      'Europe/Lond on',
    ]) {
      expect(isTimeZoneName(name), name).toBe(false);
    }
  });

  it('cuts a period at every local midnight on the 1st, and at its own open and close', () => {
    const period = { open: at('2026-01-15T12:00:00Z'), close: at('2026-04-10T00:00:00Z') };
    expect(monthSpans(period, 'UTC')).toEqual([
      { month: '2026-01', start: period.open, end: at('2026-02-01T00:00:00Z') },
      { month: '2026-02', start: at('2026-02-01T00:00:00Z'), end: at('2026-03-01T00:00:00Z') },
      { month: '2026-03', start: at('2026-03-01T00:00:00Z'), end: at('2026-04-01T00:00:00Z') },
      { month: '2026-04', start: at('2026-04-01T00:00:00Z'), end: period.close },
    ]);
    expect(periodBoundaries(period, 'UTC')).toEqual([
      period.open,
      at('2026-02-01T00:00:00Z'),
      at('2026-03-01T00:00:00Z'),
      at('2026-04-01T00:00:00Z'),
      period.close,
    ]);
  });

  it('follows both DST changes of America/New_York: March and April start at −05:00 and −04:00, November and December at −04:00 and −05:00', () => {
    const spans = monthSpans({ open: at('2026-03-01T05:00:00Z'), close: at('2027-01-01T05:00:00Z') }, 'America/New_York');
    expect(spans.map((s) => s.month)).toEqual([
      '2026-03',
      '2026-04',
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-11',
      '2026-12',
    ]);
    expect(spans[0]).toEqual({ month: '2026-03', start: at('2026-03-01T00:00:00-05:00'), end: at('2026-04-01T00:00:00-04:00') });
    // March loses the hour of 8 March (02:00 EST → 03:00 EDT), November gains it back on 1 November.
    expect((spans[0]!.end - spans[0]!.start) / 3600).toBe(31 * 24 - 1);
    expect(spans[8]).toEqual({ month: '2026-11', start: at('2026-11-01T00:00:00-04:00'), end: at('2026-12-01T00:00:00-05:00') });
    expect((spans[8]!.end - spans[8]!.start) / 3600).toBe(30 * 24 + 1);
    expect(localTime(at('2026-03-08T06:59:59Z'), 'America/New_York')).toBe('2026-03-08T01:59:59-05:00');
    expect(localTime(at('2026-03-08T07:00:00Z'), 'America/New_York')).toBe('2026-03-08T03:00:00-04:00');
    expect(localTime(at('2026-11-01T05:59:59Z'), 'America/New_York')).toBe('2026-11-01T01:59:59-04:00');
    expect(localTime(at('2026-11-01T06:00:00Z'), 'America/New_York')).toBe('2026-11-01T01:00:00-05:00');
  });

  it('starts months at local midnight in Asia/Kolkata (+05:30), Pacific/Chatham (+13:45/+12:45) and Australia/Lord_Howe (+11:00/+10:30)', () => {
    expect(monthSpans({ open: at('2026-01-20T00:00:00Z'), close: at('2026-02-10T00:00:00Z') }, 'Asia/Kolkata')[1]).toEqual({
      month: '2026-02',
      start: at('2026-02-01T00:00:00+05:30'),
      end: at('2026-02-10T00:00:00Z'),
    });
    // Chatham Islands: daylight time ends on 5 April 2026 (03:45 → 02:45).
    const chatham = monthSpans({ open: at('2026-03-10T00:00:00Z'), close: at('2026-05-10T00:00:00Z') }, 'Pacific/Chatham');
    expect(chatham.map((s) => [s.month, s.start])).toEqual([
      ['2026-03', at('2026-03-10T00:00:00Z')],
      ['2026-04', at('2026-04-01T00:00:00+13:45')],
      ['2026-05', at('2026-05-01T00:00:00+12:45')],
    ]);
    expect((chatham[1]!.end - chatham[1]!.start) / 3600).toBe(30 * 24 + 1);
    // Lord Howe Island moves its clocks by half an hour: back on 5 April, forward on 4 October 2026.
    const lordHowe = monthSpans({ open: at('2026-03-31T00:00:00Z'), close: at('2026-11-30T00:00:00Z') }, 'Australia/Lord_Howe');
    const april = lordHowe.find((s) => s.month === '2026-04')!;
    const october = lordHowe.find((s) => s.month === '2026-10')!;
    expect(april).toEqual({ month: '2026-04', start: at('2026-04-01T00:00:00+11:00'), end: at('2026-05-01T00:00:00+10:30') });
    expect((april.end - april.start) / 60).toBe(30 * 24 * 60 + 30);
    expect(october).toEqual({ month: '2026-10', start: at('2026-10-01T00:00:00+10:30'), end: at('2026-11-01T00:00:00+11:00') });
    expect((october.end - october.start) / 60).toBe(31 * 24 * 60 - 30);
    expect(localTime(at('2026-04-04T14:59:59Z'), 'Australia/Lord_Howe')).toBe('2026-04-05T01:59:59+11:00');
    expect(localTime(at('2026-04-04T15:00:00Z'), 'Australia/Lord_Howe')).toBe('2026-04-05T01:30:00+10:30');
  });

  it('gives a period starting on the 1st one section per month, and a period inside one month one section', () => {
    expect(monthSpans({ open: at('2026-02-01T00:00:00Z'), close: at('2026-03-01T00:00:00Z') }, 'UTC')).toEqual([
      { month: '2026-02', start: at('2026-02-01T00:00:00Z'), end: at('2026-03-01T00:00:00Z') },
    ]);
    expect(monthSpans({ open: at('2026-02-03T00:00:00Z'), close: at('2026-02-04T00:00:00Z') }, 'UTC')).toHaveLength(1);
  });

  it('allows ten calendar years in the statement’s time zone, leap days included', () => {
    expect(latestClose(at('2016-02-29T00:00:00Z'), 'UTC')).toBe(at('2026-02-28T00:00:00Z'));
    expect(latestClose(at('2016-06-01T00:00:00-04:00'), 'America/New_York')).toBe(at('2026-06-01T00:00:00-04:00'));
    expect(monthSpans({ open: at('2016-06-01T04:00:00Z'), close: at('2026-06-01T04:00:00Z') }, 'America/New_York')).toHaveLength(120);
  });

  it('finds every UTC offset a period crosses from the zone’s rules, each with where it starts and ends: summer to summer in London, New York and on Lord Howe Island', () => {
    const london = { open: at('2025-06-01T00:00:00+01:00'), close: at('2026-10-01T00:00:00+01:00') };
    expect(offsetSpans(london, 'Europe/London')).toEqual([
      { offset: 60, start: london.open, end: at('2025-10-26T01:00:00Z') },
      { offset: 0, start: at('2025-10-26T01:00:00Z'), end: at('2026-03-29T01:00:00Z') },
      { offset: 60, start: at('2026-03-29T01:00:00Z'), end: london.close },
    ]);
    const newYork = { open: at('2025-06-01T00:00:00-04:00'), close: at('2026-10-01T00:00:00-04:00') };
    expect(offsetSpans(newYork, 'America/New_York')).toEqual([
      { offset: -240, start: newYork.open, end: at('2025-11-02T06:00:00Z') },
      { offset: -300, start: at('2025-11-02T06:00:00Z'), end: at('2026-03-08T07:00:00Z') },
      { offset: -240, start: at('2026-03-08T07:00:00Z'), end: newYork.close },
    ]);
    // Lord Howe's summer is the southern one, and its clocks move by 30 minutes.
    const lordHowe = { open: at('2025-12-01T00:00:00+11:00'), close: at('2027-03-01T00:00:00+11:00') };
    expect(offsetSpans(lordHowe, 'Australia/Lord_Howe')).toEqual([
      { offset: 660, start: lordHowe.open, end: at('2026-04-04T15:00:00Z') },
      { offset: 630, start: at('2026-04-04T15:00:00Z'), end: at('2026-10-03T15:30:00Z') },
      { offset: 660, start: at('2026-10-03T15:30:00Z'), end: lordHowe.close },
    ]);
    expect(offsetSpans({ open: at('2026-01-01T00:00:00Z'), close: at('2026-07-01T00:00:00Z') }, 'Asia/Kolkata')).toEqual([
      { offset: 330, start: at('2026-01-01T00:00:00Z'), end: at('2026-07-01T00:00:00Z') },
    ]);
  });
});
