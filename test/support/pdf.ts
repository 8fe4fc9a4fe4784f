/**
 * Reading PDFs back the way a person's tools would: poppler's pdftotext, pdfinfo, pdfdetach and
 * pdftoppm (Debian's poppler-utils, which .ci/run installs), and the `qr` package's decoder for a
 * QR code on a rendered page.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import decodeQR from 'qr/decode.js';

const run = promisify(execFile);

async function withPdf<T>(pdf: Buffer, use: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ownproof-pdf-'));
  try {
    const file = path.join(dir, 'document.pdf');
    writeFileSync(file, pdf);
    return await use(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of each page, in reading order (`pdftotext -layout`). */
export async function pdfPages(pdf: Buffer): Promise<string[]> {
  return withPdf(pdf, async (file) => {
    const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 256 * 1024 * 1024 });
    // pdftotext ends every page with a form feed.
    return stdout.split('\f').slice(0, -1);
  });
}

/** A word on a page and its box, in points from the page's top-left corner (`pdftotext -bbox`). */
export interface PdfWord {
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** Each page's size and words with their boxes, so a test can check where text was drawn. */
export async function pdfWordBoxes(pdf: Buffer): Promise<{ width: number; height: number; words: PdfWord[] }[]> {
  return withPdf(pdf, async (file) => {
    const { stdout } = await run('pdftotext', ['-bbox', '-enc', 'UTF-8', file, '-'], { maxBuffer: 256 * 1024 * 1024 });
    const unescape = (text: string) =>
      text
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'")
        .replace(/&amp;/g, '&');
    return [...stdout.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)].map(([, width, height, body]) => ({
      width: Number(width),
      height: Number(height),
      words: [
        ...(body as string).matchAll(/<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g),
      ].map(([, xMin, yMin, xMax, yMax, text]) => ({
        text: unescape(text as string),
        xMin: Number(xMin),
        yMin: Number(yMin),
        xMax: Number(xMax),
        yMax: Number(yMax),
      })),
    }));
  });
}

/** `pdfinfo`'s fields (`Pages`, `Page size`, `Title`, …). */
export async function pdfInfo(pdf: Buffer): Promise<Record<string, string>> {
  return withPdf(pdf, async (file) => {
    const { stdout } = await run('pdfinfo', [file]);
    return Object.fromEntries(
      stdout.split('\n').flatMap((line) => {
        const field = /^([^:]+):\s+(.*)$/.exec(line);
        return field ? [[field[1] as string, field[2] as string]] : [];
      }),
    );
  });
}

/** The fonts the PDF uses, as `pdffonts` lists them: name, whether embedded. */
export async function pdfFonts(pdf: Buffer): Promise<{ name: string; embedded: boolean }[]> {
  return withPdf(pdf, async (file) => {
    const { stdout } = await run('pdffonts', [file]);
    return stdout
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const fields = line.trim().split(/\s+/);
        // name type… encoding emb sub uni object ID: "emb" is the fifth field from the end.
        return { name: fields[0] as string, embedded: fields[fields.length - 5] === 'yes' };
      });
  });
}

/** The files embedded in the PDF (`pdfdetach -saveall`), by name. */
export async function pdfAttachments(pdf: Buffer): Promise<Map<string, Buffer>> {
  return withPdf(pdf, async (file, dir) => {
    const out = path.join(dir, 'attachments');
    mkdirSync(out);
    await run('pdfdetach', ['-saveall', '-o', out, file]);
    return new Map(readdirSync(out).map((name) => [name, readFileSync(path.join(out, name))]));
  });
}

/** The text of the QR codes found on a page rendered at 150 dpi (`pdftoppm -gray`). */
export async function pdfQrCodes(pdf: Buffer, page = 1): Promise<string[]> {
  return withPdf(pdf, async (file, dir) => {
    const prefix = path.join(dir, 'page');
    await run('pdftoppm', ['-gray', '-r', '150', '-f', String(page), '-l', String(page), file, prefix]);
    const pgm = readFileSync(path.join(dir, readdirSync(dir).find((name) => name.endsWith('.pgm')) as string));
    // Binary PGM: "P5\n<width> <height>\n<maxval>\n" then one byte per pixel.
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 64).toString('latin1'));
    if (!header) throw new Error('pdftoppm did not write a binary PGM');
    const [width, height] = [Number(header[1]), Number(header[2])];
    const gray = pgm.subarray(header[0].length);
    const rgb = new Uint8Array(width * height * 3);
    for (let i = 0; i < width * height; i++) rgb.fill(gray[i] as number, 3 * i, 3 * i + 3);
    try {
      return [decodeQR({ width, height, data: rgb })];
    } catch {
      return [];
    }
  });
}
