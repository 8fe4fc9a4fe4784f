/**
 * The start of an HTTP-date in any of RFC 9110's three forms (IMF-fixdate `Sun, 06 Nov 1994 …`,
 * RFC 850 `Sunday, 06-Nov-94 …`, asctime `Sun Nov  6 …`), which recipients must all accept; all
 * begin with the day's name. Date.parse alone is too lenient: it reads `-5` as a date in 2001.
 */
const HTTP_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

/**
 * Parses a Retry-After header (delta-seconds or an HTTP-date) into milliseconds from `now`;
 * undefined when absent or malformed. Past dates give 0. Every outbound HTTP client of ours
 * (webhook delivery, the Esplora chain source) reads the header with this.
 */
export function parseRetryAfter(header: string | null | undefined, now: number): number | undefined {
  if (header == null) return undefined;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  if (!HTTP_DATE.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
