import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const css = readFileSync(new URL('./assets/web.css', import.meta.url));

/**
 * The pages' one stylesheet, read once at start-up. Its name carries a hash of its content, so
 * browsers may cache it forever and a new version is a new URL.
 */
export const STYLESHEET = {
  body: css,
  file: `web.${createHash('sha256').update(css).digest('hex').slice(0, 12)}.css`,
} as const;
