/**
 * The page frame of a statement PDF: pdfkit with our embedded fonts, and a flow of measured pieces
 * (paragraphs, headings, facts, lists, table rows) laid out onto pages at the end. Because every
 * piece's height is known before the first is drawn, a page break can see what remains of the
 * document: the last page is never left with a few lines on it (see {@link PdfLayout.finish}).
 * Tables are in `pdf-table.ts`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';
import type { PageSize } from '../../../platform/config/config.js';
import { CellFont, CellWriter } from './pdf-text.js';

/**
 * DejaVu Sans, Sans Bold and Sans Mono (Bitstream Vera licence, `fonts/LICENSE`), from Debian's
 * fonts-dejavu-core 2.37, committed so every server draws the same glyphs. The monospace face
 * writes transaction ids, addresses and hashes, whose characters a reader copies one by one.
 */
const FONT_FILES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf', mono: 'DejaVuSansMono.ttf' } as const;
export type FontName = keyof typeof FONT_FILES;
let fontBytes: Record<FontName, Buffer> | undefined;
function fonts(): Record<FontName, Buffer> {
  const read = (name: FontName) => readFileSync(fileURLToPath(new URL(`./fonts/${FONT_FILES[name]}`, import.meta.url)));
  fontBytes ??= { regular: read('regular'), bold: read('bold'), mono: read('mono') };
  return fontBytes;
}

/** Page sizes in points (1/72 inch): ISO A4 and US Letter. */
const PAGE_POINTS: Record<PageSize, [number, number]> = { A4: [595.28, 841.89], Letter: [612, 792] };

export const GRAY = { text: 0, detail: 0.2, muted: 0.35, rule: 0.6, shade: 0.94, header: 0.88 } as const;

/** Pieces laid out between two yields to the event loop: a long statement never holds the server for long. */
const PIECES_PER_TURN = 400;
/**
 * The least of the document's end that goes on its last page, as a share of a page's body: when
 * less would be left over, the page before ends early. A fifth of a page or more is never "nearly
 * empty"; up to this much white space at the foot of the page before is the price.
 */
const LAST_PAGE_SHARE = 0.3;

/** Something drawn at the top of a page that continues a table or list: its caption "(continued)" and column titles. */
export interface Continuation {
  height: number;
  draw(y: number): void;
}

/** A measured part of the document, drawn once the layout knows which page it lands on. */
export interface Piece {
  height: number;
  /** Points that must fit on the page for it to start there (a short table whole, the first lines of a long one); at least `height`. */
  keep?: number;
  /** Goes on the page of the piece after it (a heading): what must fit includes that piece's `keep`. */
  keepWithNext?: boolean;
  /** Draws it with its top at `y`. */
  draw(y: number): void;
  /** Redrawn at the top of a new page that this piece starts. */
  continued?: Continuation | undefined;
  /** Blank space: never starts a page, and is dropped at the foot of one. */
  space?: boolean;
}

export class PdfLayout {
  readonly doc: PDFKit.PDFDocument;
  readonly writer: CellWriter;
  readonly cell: Record<FontName, CellFont>;
  readonly left = 42;
  readonly top = 58;
  readonly bottomMargin = 52;
  readonly width: number;
  readonly height: number;
  private readonly pieces: Piece[] = [];

  constructor(pageSize: PageSize, info: PDFKit.DocumentInfo) {
    const [width, height] = PAGE_POINTS[pageSize];
    this.width = width;
    this.height = height;
    const bytes = fonts();
    // No default font: pdfkit would load Helvetica, a font readers substitute rather than one the
    // PDF embeds. Ours are registered by name, so pdfkit parses each once per document (a font
    // given as bytes is parsed again on every switch to it).
    this.doc = new PDFDocument({
      size: [width, height],
      margin: 0,
      bufferPages: false,
      autoFirstPage: true,
      font: null as unknown as string,
      info,
      pdfVersion: '1.7',
    });
    for (const name of Object.keys(FONT_FILES) as FontName[]) this.doc.registerFont(name, bytes[name]);
    this.cell = { regular: CellFont.of(this.doc, 'regular'), bold: CellFont.of(this.doc, 'bold'), mono: CellFont.of(this.doc, 'mono') };
    this.doc.font('regular');
    this.writer = new CellWriter(this.doc);
  }

  get right(): number {
    return this.width - this.left;
  }

  get contentWidth(): number {
    return this.width - 2 * this.left;
  }

  get bottom(): number {
    return this.height - this.bottomMargin;
  }

  /** The height a page holds between its running header and footer. */
  get bodyHeight(): number {
    return this.bottom - this.top;
  }

  /** Adds pieces to the end of the document (an array, not arguments: a table may have a hundred thousand rows). */
  add(pieces: readonly Piece[]): void {
    for (const piece of pieces) this.pieces.push(piece);
  }

  /** A block drawn by `draw` with its top at the given y, `height` points tall, kept on one page. */
  block(height: number, draw: (y: number) => void): void {
    this.pieces.push({ height, draw });
  }

  /** Blank space. */
  space(height: number): void {
    this.pieces.push({ height, space: true, draw: () => undefined });
  }

  /** Wrapped text (kept on one page: blocks here are short), then a gap. */
  paragraph(text: string, options: { font?: FontName; size?: number; gray?: number; indent?: number; gap?: number } = {}): void {
    const x = this.left + (options.indent ?? 0);
    const width = this.right - x;
    const font = options.font ?? 'regular';
    const size = options.size ?? 8.5;
    const height = this.doc.font(font).fontSize(size).heightOfString(text, { width });
    this.pieces.push({
      height: height + (options.gap ?? 2),
      keep: height,
      draw: (y) => {
        this.doc
          .font(font)
          .fontSize(size)
          .fillColor(grayColor(options.gray ?? GRAY.text))
          .text(text, x, y, { width });
      },
    });
  }

  /** A section heading, kept with the first lines of what follows it. */
  heading(text: string, size = 11): void {
    const height = this.doc.font('bold').fontSize(size).heightOfString(text, { width: this.contentWidth });
    this.pieces.push({
      height: 6 + height + 4,
      keepWithNext: true,
      draw: (y) => {
        this.doc
          .font('bold')
          .fontSize(size)
          .fillColor(grayColor(GRAY.text))
          .text(text, this.left, y + 6, { width: this.contentWidth });
      },
    });
  }

  /**
   * `label: item, item, …` wrapped at commas, as long as it needs to be (a wallet's addresses, a
   * few thousand of them): a piece per line, so it continues on the next page below the running
   * header, after the label repeated with "(continued)", rather than over the footer.
   */
  list(label: string, items: readonly string[], options: { size: number; gray: number; indent: number; gap: number }): void {
    const { size, gray } = options;
    const x = this.left + options.indent;
    const font = this.cell.regular;
    const lineHeight = this.doc.font('regular').fontSize(size).currentLineHeight(true);
    const lines: string[] = [];
    let line = `${label}:`;
    items.forEach((item, i) => {
      const next = `${item}${i < items.length - 1 ? ',' : ''}`;
      if (font.width(`${line} ${next}`, size) <= this.right - x) {
        line = `${line} ${next}`;
      } else {
        lines.push(line);
        line = next;
      }
    });
    lines.push(line);
    const write = (text: string, y: number) => this.writer.text(font, size, text, x, y, { gray });
    const continued: Continuation = { height: lineHeight, draw: (y) => write(`${label} (continued):`, y) };
    const whole = lines.length * lineHeight;
    lines.forEach((text, i) => {
      this.pieces.push({
        height: lineHeight,
        keep: i === 0 ? keepOf(whole, 3 * lineHeight, this.bodyHeight) : lineHeight,
        continued: i === 0 ? undefined : continued,
        draw: (y) => write(text, y),
      });
    });
    this.space(options.gap);
  }

  /** Label and value lines (`Account holder   Ada Lovelace …`); a value may ask for another font (a hash in monospace). */
  facts(pairs: [label: string, value: string, font?: FontName][], labelWidth = 92): void {
    const width = this.contentWidth - labelWidth;
    for (const [label, value, font = 'regular'] of pairs) {
      const height = this.doc.font(font).fontSize(8.5).heightOfString(value, { width });
      this.pieces.push({
        height: height + 3,
        keep: height,
        draw: (y) => {
          this.doc
            .font('bold')
            .fontSize(8.5)
            .fillColor(grayColor(GRAY.muted))
            .text(label, this.left, y, { width: labelWidth - 6, lineBreak: false });
          this.doc
            .font(font)
            .fontSize(8.5)
            .fillColor(grayColor(GRAY.text))
            .text(value, this.left + labelWidth, y, { width });
        },
      });
    }
  }

  /**
   * A QR code of square modules in the `size`-point square whose top-left corner is (x, y). A
   * module is a whole number of quarter points (the largest that fits), the code centred: at some
   * sizes in between, the edges of modules blurred enough at 150 dpi that the tests' decoder missed
   * the code now and then, depending only on where the page put it.
   */
  qr(matrix: boolean[][], x: number, y: number, size: number): void {
    const module = Math.floor((size / matrix.length) * 4) / 4;
    const inset = (size - module * matrix.length) / 2;
    x += inset;
    y += inset;
    matrix.forEach((row, r) => {
      // Runs of dark modules in a row as one rectangle each: fewer operators, no hairline seams.
      for (let c = 0; c < row.length;) {
        if (!row[c]) {
          c += 1;
          continue;
        }
        let end = c;
        while (end < row.length && row[end]) end += 1;
        this.writer.fill(x + c * module, y + r * module, (end - c) * module, module, 0);
        c = end;
      }
    });
    this.writer.flush();
  }

  /**
   * Where each piece goes, before anything is drawn: its top, and whether it starts a new page. A
   * piece starts a new page when its `keep` does not fit on this one — and also when what remains
   * of the document (this piece and every one after it) does not fit but is less than
   * {@link LAST_PAGE_SHARE} of a page: the page then ends early, so the last page holds at least
   * that share (less one piece) instead of a few stray lines.
   */
  private paginate(): { tops: Float64Array; breaks: Uint8Array; pages: number } {
    const { pieces } = this;
    const remaining = new Float64Array(pieces.length + 1);
    for (let i = pieces.length - 1; i >= 0; i--) remaining[i] = (remaining[i + 1] as number) + (pieces[i] as Piece).height;
    const lastPage = this.bodyHeight * LAST_PAGE_SHARE;
    const tops = new Float64Array(pieces.length);
    const breaks = new Uint8Array(pieces.length);
    // What must fit for a piece to start on a page: its own keep, and the next one's for a heading.
    const needs = new Float64Array(pieces.length);
    for (let i = pieces.length - 1; i >= 0; i--) {
      const piece = pieces[i] as Piece;
      needs[i] = piece.keepWithNext && i + 1 < pieces.length ? piece.height + (needs[i + 1] as number) : (piece.keep ?? piece.height);
    }
    let pages = 1;
    let y = this.top;
    let pageStart = y;
    pieces.forEach((piece, i) => {
      if (piece.space) {
        tops[i] = y;
        y = Math.min(y + piece.height, this.bottom);
        return;
      }
      if (y > pageStart) {
        const left = this.bottom - y;
        const rest = remaining[i] as number;
        if ((rest > left && rest <= lastPage) || (needs[i] as number) > left) {
          breaks[i] = 1;
          pages += 1;
          y = this.top + (piece.continued?.height ?? 0);
          pageStart = y;
        }
      }
      tops[i] = y;
      y += piece.height;
    });
    return { tops, breaks, pages };
  }

  /**
   * Lays out and renders everything, `decorate` drawing on each page (running header, "page x of
   * y") as it is finished. The pages are counted before the first is drawn, so each page is
   * written out (and its content compressed and let go) as soon as the next one starts: a long
   * statement never holds all its pages in memory.
   */
  async finish(decorate: (page: number, pages: number) => void): Promise<Buffer> {
    const chunks: Buffer[] = [];
    this.doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve, reject) => {
      this.doc.on('end', resolve);
      this.doc.on('error', reject);
    });
    const { tops, breaks, pages } = this.paginate();
    let page = 1;
    const endPage = () => {
      decorate(page, pages);
      this.writer.flush();
    };
    for (const [i, piece] of this.pieces.entries()) {
      if (breaks[i] === 1) {
        endPage();
        this.doc.addPage({ size: [this.width, this.height], margin: 0 });
        page += 1;
        piece.continued?.draw(this.top);
      }
      if (!piece.space) piece.draw(tops[i] as number);
      if (i % PIECES_PER_TURN === PIECES_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    }
    endPage();
    this.doc.end();
    await ended;
    return Buffer.concat(chunks);
  }
}

/** What a block `whole` points tall keeps together: all of it when short (a third of a page at most), else its first `first` points. */
export function keepOf(whole: number, first: number, bodyHeight: number): number {
  return whole <= bodyHeight / 3 ? whole : first;
}

/** A gray level (0 black … 1 white) as the hex colour pdfkit's own text takes. */
export function grayColor(level: number): string {
  const byte = Math.round(level * 255)
    .toString(16)
    .padStart(2, '0');
  return `#${byte}${byte}${byte}`;
}
