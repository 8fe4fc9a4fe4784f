import { html, type SafeHtml } from './html.js';

/** The field every form of a surface carries: the CSRF token of `reply.generateCsrf()`. */
export const CSRF_FIELD = '_csrf';

/** The hidden CSRF field for a form (the page kit checks it on every form POST). */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** The first string of a parsed form or query value (repeated keys arrive as arrays). */
export function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/**
 * The named fields of a form body and nothing else (never the CSRF token). Bodies are parsed into
 * null-prototype objects; only own keys are read.
 */
export function formValues(body: unknown, names: readonly string[]): Record<string, string> {
  const fields = (body ?? {}) as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = Object.hasOwn(fields, name) ? firstString(fields[name]) : undefined;
    if (value !== undefined) values[name] = value;
  }
  return values;
}
