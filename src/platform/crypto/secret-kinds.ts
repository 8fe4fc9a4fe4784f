/**
 * How one kind of secret is kept out of logs. A value we mint has a prefix, so it is recognised in
 * any text (a URL path, an error message, a stack); a value someone else made (an exchange's key,
 * a provider's OAuth token) has no shape, so it is caught by where it travels: a query parameter,
 * or a field of a logged object. Request and response bodies are never logged at all.
 */
export interface SecretKind {
  /** What it is, who holds it, where it travels. */
  description: string;
  /** Minted as `<prefix>_<random>` (newSecret, or `whsec_` + base64): scrubbed wherever text shaped like one appears. */
  prefixes?: readonly string[];
  /** The random part: base62 (`newSecret`) or base64 (Standard Webhooks secrets, which may hold `+`, `/`, `=`). */
  alphabet?: 'base62' | 'base64';
  /** URL query (or form) parameters that carry it: their values are scrubbed from logged URLs and messages. */
  parameters?: readonly string[];
  /** pino paths of logged objects that carry it: censored whole (top-level names only: a `*` path costs every line). */
  logPaths?: readonly string[];
}

/**
 * Every kind of secret the service issues or is given, in one list (like the error table): the
 * log redaction (`src/platform/http/logging.ts`) is derived from it, `newSecret` mints only the
 * prefixes listed here, and the secrets test (`src/main/secrets-in-logs.processes.test.ts`) makes
 * one of each kind and searches a server's whole output for them. It lives in platform because the
 * logger, the worker and the mailer scrub text without knowing the modules (docs/architecture.md,
 * "Logging").
 */
export const SECRET_KINDS = {
  api_key: {
    description: 'A client’s API key, in the Authorization header of every API request.',
    prefixes: ['sk_test', 'sk_live'],
    alphabet: 'base62',
    logPaths: ['req.headers.authorization'],
  },
  session_client_secret: {
    description: 'A connect session’s secret: the last path segment of its hosted pages, so in every hosted-page URL.',
    prefixes: ['cs_test', 'cs_live'],
    alphabet: 'base62',
    logPaths: ['client_secret'],
  },
  connect_browser_token: {
    description:
      'The browser a connect session belongs to once the person accepted its disclaimer, in an HttpOnly cookie scoped to its hosted pages.',
    prefixes: ['cb'],
    alphabet: 'base62',
    logPaths: ['req.headers.cookie', 'res.headers["set-cookie"]'],
  },
  portal_link_token: {
    description: 'A portal sign-in link’s token, mailed to the account holder: in the path of the sign-in URL.',
    prefixes: ['pl'],
    alphabet: 'base62',
  },
  portal_session_token: {
    description: 'A signed-in portal session, in its cookie.',
    prefixes: ['ps'],
    alphabet: 'base62',
    logPaths: ['req.headers.cookie', 'res.headers["set-cookie"]'],
  },
  csrf_token: {
    description: 'The page surfaces’ CSRF secret (a cookie) and the token made from it (the `_csrf` form field).',
    parameters: ['_csrf'],
    logPaths: ['req.headers.cookie', 'res.headers["set-cookie"]'],
  },
  webhook_secret: {
    description: 'A webhook endpoint’s signing secret (Standard Webhooks), shown when created or rotated.',
    prefixes: ['whsec'],
    alphabet: 'base64',
    logPaths: ['secret'],
  },
  oauth: {
    description:
      'A provider sign-in: our state and PKCE verifier, the authorization code on the return URL, the tokens the provider issues, and the operator’s OAuth client secret sent with them.',
    parameters: ['code', 'state', 'code_verifier', 'access_token', 'refresh_token', 'client_secret'],
    logPaths: ['access_token', 'refresh_token'],
  },
  exchange_credentials: {
    description:
      'What an account holder types into a provider’s form (API keys, secrets, passwords), kept sealed as the account’s connection.',
    logPaths: ['connection', 'password'],
  },
} as const satisfies Record<string, SecretKind>;

export type SecretKindName = keyof typeof SECRET_KINDS;

type Kinds = (typeof SECRET_KINDS)[SecretKindName];

/** The prefixes `newSecret` may mint: the base62 kinds' of the list. */
export type SecretPrefix = Kinds extends infer K ? (K extends { alphabet: 'base62'; prefixes: readonly (infer P)[] } ? P : never) : never;
