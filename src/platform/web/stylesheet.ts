import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const KIT_CSS = readFileSync(new URL('./assets/web.css', import.meta.url));

export interface Stylesheet {
  body: Buffer;
  /** File name carrying a hash of the content: browsers may cache it forever, a new version is a new URL. */
  file: string;
}

/** The kit's stylesheet followed by a surface's own styles, read once when the surface is mounted. */
export function surfaceStylesheet(extra?: URL): Stylesheet {
  const body = extra ? Buffer.concat([KIT_CSS, Buffer.from('\n'), readFileSync(extra)]) : KIT_CSS;
  return { body, file: `web.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.css` };
}
