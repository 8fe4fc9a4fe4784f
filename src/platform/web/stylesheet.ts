import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const KIT_CSS = readFileSync(new URL('./assets/web.css', import.meta.url));

export interface PageAsset {
  body: Buffer;
  /** File name carrying a hash of the content: browsers may cache it forever, a new version is a new URL. */
  file: string;
}

/** The kit's stylesheet followed by a surface's own styles, read once when the surface is mounted. */
export function surfaceStylesheet(extra?: URL): PageAsset {
  return hashedAsset(extra ? Buffer.concat([KIT_CSS, Buffer.from('\n'), readFileSync(extra)]) : KIT_CSS, 'css');
}

const KIT_JS = readFileSync(new URL('./assets/web.js', import.meta.url));

/**
 * The kit's script (progressive enhancement for pages that ask for it) followed by a surface's own
 * enhancements (each a self-contained script that does nothing on pages without its elements),
 * read once when the surface is mounted: one file, one request, one `script-src 'self'`.
 */
export function surfaceScript(extras: readonly URL[] = []): PageAsset {
  return hashedAsset(Buffer.concat([KIT_JS, ...extras.flatMap((extra) => [Buffer.from('\n'), readFileSync(extra)])]), 'js');
}

function hashedAsset(body: Buffer, extension: 'css' | 'js'): PageAsset {
  return { body, file: `web.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${extension}` };
}
