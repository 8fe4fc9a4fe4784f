import encodeQR from 'qr';
import { html, SafeHtml } from '../../../platform/web/html.js';

/**
 * The text as a QR code, an inline SVG drawn on the server (no script, no image request) by
 * `qr` (Paul Miller's zero-dependency encoder, the author of the noble/scure libraries used for
 * Bitcoin here). Medium error correction: a phone camera reads it off a screen reliably, and a
 * challenge message still fits.
 */
export function qrCodeSvg(text: string, label: string): SafeHtml {
  const svg = encodeQR(text, 'svg', { ecc: 'medium', border: 2, optimize: true });
  // The markup is the encoder's own (paths only); the text it encodes is never written into it.
  return new SafeHtml(svg.replace('<svg ', html`<svg role="img" aria-label="${label}" `.value));
}
