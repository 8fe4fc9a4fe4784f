import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { CSRF_FIELD } from '../../src/platform/web/form-values.js';

/** How a form post may differ from what a browser would send, to test refusals. */
export interface FormPostOptions {
  /** The `_csrf` field: the token of the last page's forms by default, `null` for none, or this value. */
  token?: string | null;
  /** The surface's CSRF cookie: the one it set by default, `null` to leave it out (other cookies are still sent), or this value. */
  csrfCookie?: string | null;
}

interface StoredCookie {
  value: string;
  path: string;
}

/**
 * A browser without JavaScript over `app.inject`, for the route tests of any page surface
 * (`src/platform/web/`). It keeps the cookies the pages set, as a browser would (by name, sent to
 * their path and below): the surface's CSRF cookie `ownproof_<surface>_csrf` (`__Secure-` first
 * under an https base URL) and any other, such as a sign-in session. It remembers the CSRF token of
 * the last page that had a form (the hidden `_csrf` field) and posts forms as
 * `application/x-www-form-urlencoded` with that token added. Redirects are not followed: a test
 * reads the 303 and its location, then `get`s it if it wants the next page.
 *
 * One agent is one browser: make a new one for a second person or a fresh start.
 */
export class FormAgent {
  /** The CSRF token of the last page that had a form (undefined before any). */
  token: string | undefined;
  private readonly cookies = new Map<string, StoredCookie>();

  constructor(
    private readonly app: Pick<FastifyInstance, 'inject'>,
    /** The surface's id, which names its CSRF cookie (`connect` → `ownproof_connect_csrf`). */
    readonly surface: string,
  ) {}

  /** The surface's CSRF cookie name, as set (with `__Secure-` under https) or as it will be. */
  get csrfCookieName(): string {
    const name = `ownproof_${this.surface}_csrf`;
    return this.cookies.has(`__Secure-${name}`) ? `__Secure-${name}` : name;
  }

  /** The value of the surface's CSRF cookie (for a test that sends a request of its own making). */
  csrfCookieValue(): string | undefined {
    return this.cookies.get(this.csrfCookieName)?.value;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const cookie = this.cookieHeader(url, undefined);
    return this.remember(url, await this.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} }));
  }

  /** Posts `fields` as a form, with the CSRF token and cookie unless `options` say otherwise. */
  async post(url: string, fields: Record<string, string> = {}, options: FormPostOptions = {}): Promise<LightMyRequestResponse> {
    const token = options.token === undefined ? this.token : options.token;
    const body = new URLSearchParams({ ...fields, ...(token == null ? {} : { [CSRF_FIELD]: token }) });
    const cookie = this.cookieHeader(url, options.csrfCookie);
    return this.remember(
      url,
      await this.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
        payload: body.toString(),
      }),
    );
  }

  /** The Cookie header a browser would send to `url`, with the CSRF cookie replaced or left out. */
  private cookieHeader(url: string, csrfCookie: string | null | undefined): string {
    const path = new URL(url, 'http://agent.invalid').pathname;
    const jar = new Map(
      [...this.cookies].filter(([, cookie]) => pathMatches(path, cookie.path)).map(([name, cookie]) => [name, cookie.value]),
    );
    const csrfName = this.csrfCookieName;
    if (csrfCookie === null) jar.delete(csrfName);
    else if (csrfCookie !== undefined) jar.set(csrfName, csrfCookie);
    return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(url: string, res: LightMyRequestResponse): LightMyRequestResponse {
    for (const line of [res.headers['set-cookie'] ?? []].flat()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const split = pair.indexOf('=');
      const name = pair.slice(0, split);
      const value = pair.slice(split + 1);
      const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const maxAge = attribute('max-age');
      const expires = attribute('expires');
      const removed = (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (removed) this.cookies.delete(name);
      else this.cookies.set(name, { value, path: attribute('path') ?? defaultPath(url) });
    }
    const token = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(res.body)?.[1];
    if (token) this.token = token;
    return res;
  }
}

/** RFC 6265's default cookie path: the request path up to its last slash ('/' at most). */
function defaultPath(url: string): string {
  const path = new URL(url, 'http://agent.invalid').pathname;
  return path.lastIndexOf('/') > 0 ? path.slice(0, path.lastIndexOf('/')) : '/';
}

/** RFC 6265 path matching: the cookie's path is the request path or a whole-segment prefix of it. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  return requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/');
}
