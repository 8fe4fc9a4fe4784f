import { describe, expect, it } from 'vitest';
import {
  btc,
  btcOrBlank,
  dateTimeInWords,
  isUtcZone,
  momentInWords,
  monthTitle,
  offsetAt,
  offsetsInWords,
  periodInWords,
  price,
  rowTime,
  signedBtc,
} from './statement-words.js';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('prices', () => {
  it.each([
    // The sandbox series and real sources give prices with as many decimals as they carry: a
    // column of them read 57,506 over 62,050.2 over 62,962.3 in a London statement.
    ['57506', 'EUR', '57,506.00'],
    ['62050.2', 'EUR', '62,050.20'],
    ['64951.43', 'GBP', '64,951.43'],
    // Digits beyond the minor unit are the source's, kept as the signed data holds them.
    ['62050.125', 'USD', '62,050.125'],
    ['9876543', 'JPY', '9,876,543'],
    ['9876543.5', 'JPY', '9,876,543.5'],
  ])('writes %s %s as %s', (amount, currency, text) => {
    expect(price(amount, currency)).toBe(text);
  });
});

describe('amounts in BTC', () => {
  it.each([
    ['0', '0.00000000'],
    ['1', '0.00000001'],
    ['150000000', '1.50000000'],
    ['123456789012', '1,234.56789012'],
    ['2100000000000000', '21,000,000.00000000'],
    // Beyond any float's exact range: the digits survive because nothing is a float.
    ['123456789012345678901', '1,234,567,890,123.45678901'],
    ['-5000', '-0.00005000'],
  ])('writes %s satoshis as %s', (sats, text) => {
    expect(btc(sats)).toBe(text);
  });

  it('leaves a zero amount column blank', () => {
    expect(btcOrBlank('0')).toBe('');
    expect(btcOrBlank('7')).toBe('0.00000007');
  });

  it('writes the sign of an amount that may be negative', () => {
    expect([signedBtc('4000'), signedBtc('-2000'), signedBtc('0')]).toEqual(['+0.00004000', '-0.00002000', '0.00000000']);
  });
});

describe('times, always with their zone', () => {
  it('writes a row’s stored local time as its date, and its time to the minute with the offset, without date arithmetic', () => {
    expect(rowTime('2026-03-08T03:00:00-04:00', false)).toEqual({ date: '2026-03-08', time: '03:00 -04:00' });
    expect(rowTime('2026-04-05T01:30:00+10:30', false)).toEqual({ date: '2026-04-05', time: '01:30 +10:30' });
    expect(rowTime('2026-03-08T03:00:00Z', true)).toEqual({ date: '2026-03-08', time: '03:00 UTC' });
    // Etc/GMT is UTC by another name; luxon writes its offset rather than Z.
    expect(rowTime('2026-03-08T03:00:00+00:00', isUtcZone('Etc/GMT'))).toEqual({ date: '2026-03-08', time: '03:00 UTC' });
    expect(isUtcZone('Europe/London')).toBe(false);
  });

  it('writes a moment with the zone’s offset then, or UTC', () => {
    expect(dateTimeInWords(at('2026-11-27T14:56:00Z'), 'Europe/London')).toBe('27 November 2026, 14:56 UTC+00:00');
    expect(dateTimeInWords(at('2026-07-27T14:56:00Z'), 'Europe/London')).toBe('27 July 2026, 15:56 UTC+01:00');
    expect(dateTimeInWords(at('2026-07-27T14:56:00Z'), 'Etc/UTC')).toBe('27 July 2026, 14:56 UTC');
  });

  it('says which offsets the period crosses and when the clocks change, from the zone’s rules', () => {
    expect(offsetsInWords({ open: at('2025-06-01T00:00:00+01:00'), close: at('2026-10-01T00:00:00+01:00') }, 'Europe/London')).toBe(
      'Times are in Europe/London, each with its offset from UTC: +01:00 to 26 October 2025, 01:00 UTC, then +00:00 to 29 March 2026, 01:00 UTC, then +01:00.',
    );
    expect(offsetsInWords({ open: at('2026-01-01T00:00:00Z'), close: at('2026-02-01T00:00:00Z') }, 'Asia/Kolkata')).toBe(
      'Times are in Asia/Kolkata, each with its offset from UTC: +05:30 throughout.',
    );
    expect(offsetsInWords({ open: at('2026-06-01T00:00:00Z'), close: at('2026-07-01T00:00:00Z') }, 'America/New_York')).toBe(
      'Times are in America/New_York, each with its offset from UTC: -04:00 throughout.',
    );
    expect(offsetsInWords({ open: at('2026-01-01T00:00:00Z'), close: at('2027-01-01T00:00:00Z') }, 'UTC')).toBe('Times are in UTC.');
  });
});

describe('periods and months in words, in the statement’s time zone', () => {
  it('writes a period of whole local days with its last day included', () => {
    // New York: March is an hour shorter (DST starts on the 8th); the period still reads as whole days.
    expect(periodInWords({ open: at('2026-03-01T05:00:00Z'), close: at('2026-04-01T04:00:00Z') }, 'America/New_York')).toBe(
      '1 March 2026 to 31 March 2026',
    );
    expect(periodInWords({ open: at('2026-01-01T00:00:00Z'), close: at('2027-01-01T00:00:00Z') }, 'UTC')).toBe(
      '1 January 2026 to 31 December 2026',
    );
  });

  it('writes a period that does not start and end at local midnight with its times, the end excluded', () => {
    expect(periodInWords({ open: at('2026-10-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') }, 'America/New_York')).toBe(
      '30 September 2026, 20:00 UTC-04:00 to 19 November 2026, 19:00 UTC-05:00 (the end not included)',
    );
  });

  it('starts months at local midnight in zones with odd offsets', () => {
    // Chatham is UTC+13:45 in January; Kolkata UTC+05:30.
    expect(periodInWords({ open: at('2025-12-31T10:15:00Z'), close: at('2026-01-31T10:15:00Z') }, 'Pacific/Chatham')).toBe(
      '1 January 2026 to 31 January 2026',
    );
    expect(offsetAt(at('2026-01-15T00:00:00Z'), 'Pacific/Chatham')).toBe('UTC+13:45');
    expect(offsetAt(at('2026-01-15T00:00:00Z'), 'Asia/Kolkata')).toBe('UTC+05:30');
  });

  it('says where a balance is taken: the start or end of a day at midnight, else the time', () => {
    expect(momentInWords(at('2026-11-01T04:00:00Z'), 'America/New_York', 'start')).toBe('start of 1 November 2026 (UTC-04:00)');
    expect(momentInWords(at('2026-11-01T04:00:00Z'), 'America/New_York', 'end')).toBe('end of 31 October 2026 (UTC-04:00)');
    expect(momentInWords(at('2026-11-01T00:00:00Z'), 'America/New_York', 'end')).toBe('31 October 2026, 20:00 UTC-04:00');
    expect(momentInWords(at('2026-11-01T00:00:00Z'), 'UTC', 'start')).toBe('start of 1 November 2026 (UTC)');
  });

  it('titles a month section, with where the period cuts it', () => {
    expect(monthTitle({ month: '2026-03', start: at('2026-03-01T05:00:00Z'), end: at('2026-04-01T04:00:00Z') }, 'America/New_York')).toBe(
      'March 2026',
    );
    expect(monthTitle({ month: '2026-09', start: at('2026-10-01T00:00:00Z'), end: at('2026-10-01T04:00:00Z') }, 'America/New_York')).toBe(
      'September 2026, from 30 September, 20:00 UTC-04:00',
    );
    expect(monthTitle({ month: '2026-11', start: at('2026-11-01T04:00:00Z'), end: at('2026-11-20T05:00:00Z') }, 'America/New_York')).toBe(
      'November 2026, to 19 November',
    );
    expect(monthTitle({ month: '2026-11', start: at('2026-11-01T04:00:00Z'), end: at('2026-11-20T00:00:00Z') }, 'America/New_York')).toBe(
      'November 2026, until 19 November, 19:00 UTC-05:00',
    );
  });
});
