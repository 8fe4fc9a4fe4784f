import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/**
 * Fastify's `inject` over a real socket: the same options, sent with fetch to a running server
 * at `baseUrl` (a child process), so helpers written for `app.inject` (FormAgent) drive it.
 * Redirects are not followed. Only what those helpers read is filled in: status, headers
 * (`set-cookie` as a list), body and `json()`.
 */
export function injectOverHttp(baseUrl: string): Pick<FastifyInstance, 'inject'> {
  const inject = async (options: InjectOptions): Promise<LightMyRequestResponse> => {
    const headers = Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name, String(value)]));
    const res = await fetch(`${baseUrl}${String(options.url)}`, {
      method: options.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(options.payload === undefined
        ? {}
        : { body: typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload) }),
    });
    const body = await res.text();
    const responseHeaders: Record<string, string | string[]> = Object.fromEntries(res.headers);
    const cookies = res.headers.getSetCookie();
    if (cookies.length > 0) responseHeaders['set-cookie'] = cookies;
    return {
      statusCode: res.status,
      headers: responseHeaders,
      body,
      payload: body,
      json: () => JSON.parse(body),
    } as unknown as LightMyRequestResponse;
  };
  return { inject } as unknown as Pick<FastifyInstance, 'inject'>;
}
