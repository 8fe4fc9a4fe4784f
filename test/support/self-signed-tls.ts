import { request as httpsRequest } from 'node:https';

/**
 * A self-signed certificate for 127.0.0.1 and localhost, valid from 2000 to 2100, and its private
 * key: test receivers only. Nothing trusts it (the tests check that deliveries refuse it) and the
 * key protects nothing. Made once with `openssl ca -selfsign -startdate 20000101000000Z
 * -enddate 21000101000000Z` (P-256), so it is valid whatever the machine's clock says and no test
 * needs `openssl` or a certificate library.
 */
export const SELF_SIGNED_TLS = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQga/wZ+Ps6YK5Fj8iM
bJuGu7TQINLa3ByE+I7TILX8XbGhRANCAASYYaPLcnUnBojbpl54aw+7/BTsizvE
EYB71TPvEVYDcllRz/OdJ+cggOZXgItLAJRWFTX4gNRVNXKh5c5A5hl6
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBsTCCAVigAwIBAgIBATAKBggqhkjOPQQDAjA7MTkwNwYDVQQDDDBvd25wcm9v
ZiB0ZXN0IHJlY2VpdmVyIChzZWxmLXNpZ25lZCwgdGVzdHMgb25seSkwIBcNMDAw
MTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMDsxOTA3BgNVBAMMMG93bnByb29m
IHRlc3QgcmVjZWl2ZXIgKHNlbGYtc2lnbmVkLCB0ZXN0cyBvbmx5KTBZMBMGByqG
SM49AgEGCCqGSM49AwEHA0IABJhho8tydScGiNumXnhrD7v8FOyLO8QRgHvVM+8R
VgNyWVHP850n5yCA5leAi0sAlFYVNfiA1FU1cqHlzkDmGXqjSzBJMBoGA1UdEQQT
MBGCCWxvY2FsaG9zdIcEfwAAATAMBgNVHRMBAf8EAjAAMB0GA1UdDgQWBBRmSiV3
fO2JeWBQ6v8lAYkal31WvjAKBggqhkjOPQQDAgNHADBEAiA7H1PHtYev6PmlJEIZ
RD0GXfJ1n9aCrYhgMaQKx64HpAIgcBz6yguQOCtHYfDhlaAdD6jX07TBcFDhCOcU
1OyplII=
-----END CERTIFICATE-----
`,
};

/**
 * A fetch for ccxt (its `fetchImplementation` option) that trusts this certificate and nothing
 * else, without touching the process's TLS settings: how ccxt reaches a fake exchange over HTTPS.
 */
export async function trustingFetch(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        ca: SELF_SIGNED_TLS.cert,
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers }));
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
