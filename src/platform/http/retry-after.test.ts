import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-01-01T00:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date in each of the three RFC 9110 forms; past dates give 0', () => {
    expect(parseRetryAfter('Mon, 01 Jan 2024 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Monday, 01-Jan-24 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon Jan  1 00:00:30 2024', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 31 Dec 2023 23:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is absent or malformed', () => {
    for (const value of [null, undefined, '', 'soon', '-5', '1.5', 'Mon, not a date'])
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
  });
});
