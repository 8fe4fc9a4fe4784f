import type { Mode } from '../platform/scope.js';
import { urlTextProblem } from '../platform/url-text.js';
import { UNSAFE_URL_SCHEMES } from '../platform/web/html.js';

/** Schemes a link must never use (the page kit's list), and those that cannot lead back to an app or site. */
const FORBIDDEN_SCHEMES = new Set([...UNSAFE_URL_SCHEMES, 'ftp:', 'ws:', 'wss:']);
export const MAX_RETURN_URL_LENGTH = 2048;

/**
 * Checks a session's return_url; returns why it is refused, or undefined when it is fine.
 * Allowed: absolute `https` URLs, `http` in test mode only (local development), and custom app
 * schemes such as `myapp://done` for mobile apps.
 */
export function returnUrlProblem(value: string, mode: Mode): string | undefined {
  if (value.length > MAX_RETURN_URL_LENGTH) return `must be at most ${MAX_RETURN_URL_LENGTH} characters long`;
  const textProblem = urlTextProblem(value);
  if (textProblem !== undefined) return textProblem;
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value))
    return 'must be an absolute URL with a scheme, such as https://example.com/done or myapp://done';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid URL';
  }
  const scheme = url.protocol.toLowerCase();
  if (FORBIDDEN_SCHEMES.has(scheme)) return `must not use the ${scheme} scheme`;
  if (scheme === 'http:' && mode === 'live') return 'must use https in live mode (http is allowed in test mode only)';
  if ((scheme === 'http:' || scheme === 'https:') && url.hostname === '') return 'must name a host';
  if (url.username || url.password) return 'must not contain credentials';
  return undefined;
}

/** The return URL with only the session id and status added to its query. */
export function returnUrlWith(returnUrl: string, params: { session_id: string; status: 'completed' | 'abandoned' }): string {
  const url = new URL(returnUrl);
  url.searchParams.set('session_id', params.session_id);
  url.searchParams.set('status', params.status);
  return url.toString();
}
