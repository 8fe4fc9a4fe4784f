/**
 * The page frame of a statement PDF: pdfkit with our embedded fonts, a running position down the
 * page, page breaks that repeat a table's heading and column titles, and tables of single-line
 * cells whose columns fit their widest value.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';
import type { PageSize } from '../../platform/config/config.js';
import { CellFont, CellWriter } from './pdf-text.js';

/** DejaVu Sans (Bitstream Vera licence, `fonts/LICENSE`), from Debian's fonts-dejavu-core 2.37, committed so every server draws the same glyphs. */
const FONT_FILES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;
let fontBytes: Record<keyof typeof FONT_FILES, Buffer> | undefined;
function fonts(): Record<keyof typeof FONT_FILES, Buffer> {
  fontBytes ??= {
    regular: readFileSync(fileURLToPath(new URL(`./fonts/${FONT_FILES.regular}`, import.meta.url))),
    bold: readFileSync(fileURLToPath(new URL(`./fonts/${FONT_FILES.bold}`, import.meta.url))),
  };
  return fontBytes;
}

/** Page sizes in points (1/72 inch): ISO A4 and US Letter. */
const PAGE_POINTS: Record<PageSize, [number, number]> = { A4: [595.28, 841.89], Letter: [612, 792] };

export const GRAY = { text: 0, muted: 0.35, rule: 0.6, shade: 0.94, header: 0.88 } as const;

export interface Column {
  title: string;
  align: 'left' | 'right';
}

export interface Row {
  cells: string[];
  /** Opening, closing and total rows. */
  bold?: boolean;
  /**
   * Text written from the left edge of column `column` across `span` columns (left empty in this
   * row): "Opening balance" across the transaction and block columns.
   */
  label?: { column: number; span: number; text: string };
}

/** Where a table's columns are and how large its text is: shared by tables that must line up (the month sections). */
export interface TableShape {
  columns: Column[];
  edges: { left: number; right: number }[];
  size: number;
  rowHeight: number;
}

/** Table text size, and the smallest it shrinks to so that very large amounts still fit the page. */
const CELL_SIZE = 7.5;
const MIN_CELL_SIZE = 5.5;
const CELL_GAP = 9;
const ROW_PADDING = 3;
const CAPTION_HEIGHT = 15;
/** Rows drawn between two yields to the event loop: a long statement never holds the server for long. */
const ROWS_PER_TURN = 400;

export class PdfLayout {
  readonly doc: PDFKit.PDFDocument;
  readonly writer: CellWriter;
  readonly cell: { regular: CellFont; bold: CellFont };
  readonly left = 42;
  readonly top = 58;
  readonly bottomMargin = 52;
  readonly width: number;
  readonly height: number;
  y: number;
  /** Redraws a table's heading after a page break, while a table is being drawn. */
  private continuation: (() => void) | undefined;

  constructor(pageSize: PageSize, info: PDFKit.DocumentInfo) {
    const [width, height] = PAGE_POINTS[pageSize];
    this.width = width;
    this.height = height;
    const bytes = fonts();
    // No default font: pdfkit would load Helvetica, a font readers substitute rather than one the
    // PDF embeds. Ours are registered by name, so pdfkit parses each once per document (a font
    // given as bytes is parsed again on every switch to it).
    this.doc = new PDFDocument({ size: [width, height], margin: 0, bufferPages: true, autoFirstPage: true, font: null as unknown as string, info, pdfVersion: '1.7' });
    this.doc.registerFont('regular', bytes.regular);
    this.doc.registerFont('bold', bytes.bold);
    this.cell = { regular: CellFont.of(this.doc, 'regular'), bold: CellFont.of(this.doc, 'bold') };
    this.doc.font('regular');
    this.writer = new CellWriter(this.doc);
    this.y = this.top;
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

  /** Starts a new page when `height` more points do not fit on this one; true when it did. */
  ensure(height: number): boolean {
    if (this.y + height <= this.bottom) return false;
    this.newPage();
    return true;
  }

  newPage(): void {
    this.writer.flush();
    this.doc.addPage({ size: [this.width, this.height], margin: 0 });
    this.y = this.top;
    this.continuation?.();
  }

  /** Keeps a block of `whole` points on one page when it is short; a long one starts where its first `first` points fit. */
  private keepTogether(whole: number, first: number): void {
    this.ensure(whole <= (this.bottom - this.top) / 3 ? whole : first);
  }

  /** Wrapped text at the running position (kept on one page: blocks here are short), then moves below it. */
  paragraph(text: string, options: { font?: 'regular' | 'bold'; size?: number; gray?: number; indent?: number; width?: number; gap?: number } = {}): void {
    const x = this.left + (options.indent ?? 0);
    const width = options.width ?? this.right - x;
    this.doc.font(options.font ?? 'regular').fontSize(options.size ?? 8.5);
    const height = this.doc.heightOfString(text, { width });
    this.ensure(height);
    this.doc.fillColor(grayColor(options.gray ?? GRAY.text)).text(text, x, this.y, { width });
    this.y += height + (options.gap ?? 2);
  }

  heading(text: string, size = 11): void {
    this.ensure(size * 1.4 + 3 * (CELL_SIZE + 2 * ROW_PADDING));
    this.y += 6;
    this.paragraph(text, { font: 'bold', size, gap: 4 });
  }

  /**
   * `label: item, item, …` wrapped at commas, as long as it needs to be (a wallet's addresses, a
   * few thousand of them): written a line at a time, so it continues on the next page below the
   * running header, after the label repeated with "(continued)", rather than over the footer.
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
    const write = (text: string) => {
      this.writer.text(font, size, text, x, this.y, { gray });
      this.y += lineHeight;
    };
    this.keepTogether(lines.length * lineHeight, 3 * lineHeight);
    this.continuation = () => write(`${label} (continued):`);
    try {
      for (const text of lines) {
        this.ensure(lineHeight);
        write(text);
      }
    } finally {
      this.continuation = undefined;
    }
    this.writer.flush();
    this.y += options.gap;
  }

  /** Label and value lines (`Account holder   Ada Lovelace …`). */
  facts(pairs: [string, string][], labelWidth = 92): void {
    for (const [label, value] of pairs) {
      this.doc.font('regular').fontSize(8.5);
      const height = this.doc.heightOfString(value, { width: this.contentWidth - labelWidth });
      this.ensure(height);
      this.doc.font('bold').fontSize(8.5).fillColor(grayColor(GRAY.muted)).text(label, this.left, this.y, { width: labelWidth - 6, lineBreak: false });
      this.doc.font('regular').fontSize(8.5).fillColor(grayColor(GRAY.text)).text(value, this.left + labelWidth, this.y, { width: this.contentWidth - labelWidth });
      this.y += height + 3;
    }
  }

  /**
   * Column positions that fit the widest cell (or title) of `rows`: the spare width goes to the
   * gaps, so amounts spread across the page. When the columns together are wider than the page
   * (very large amounts), the text shrinks until they fit.
   */
  shape(columns: Column[], rows: Row[]): TableShape {
    const natural = columns.map((column, i) => {
      let widest = this.cell.bold.width(column.title, CELL_SIZE);
      for (const row of rows) widest = Math.max(widest, (row.bold ? this.cell.bold : this.cell.regular).width(row.cells[i] ?? '', CELL_SIZE));
      return widest;
    });
    // A label must fit the columns it spans: the last of them widens as far as needed.
    for (const row of rows) {
      if (!row.label) continue;
      const { column, span, text } = row.label;
      const spanned = natural.slice(column, column + span).reduce((sum, w) => sum + w, 0) + CELL_GAP * (span - 1);
      const missing = (row.bold ? this.cell.bold : this.cell.regular).width(text, CELL_SIZE) - spanned;
      if (missing > 0) natural[column + span - 1] = (natural[column + span - 1] ?? 0) + missing;
    }
    const gaps = CELL_GAP * (columns.length - 1);
    const text = natural.reduce((sum, w) => sum + w, 0);
    const size = Math.max(MIN_CELL_SIZE, Math.min(CELL_SIZE, (CELL_SIZE * (this.contentWidth - gaps)) / text));
    const scale = size / CELL_SIZE;
    const gap = columns.length > 1 ? Math.max(0, this.contentWidth - text * scale) / (columns.length - 1) : 0;
    const edges: { left: number; right: number }[] = [];
    let x = this.left;
    for (const w of natural) {
      edges.push({ left: x, right: x + w * scale });
      x += w * scale + gap;
    }
    return { columns, edges, size, rowHeight: size + 2 * ROW_PADDING };
  }

  /**
   * A table whose rows break across pages: on each new page the caption (with "continued") and
   * the column titles are drawn again.
   */
  async table(shape: TableShape, rows: readonly Row[], options: { caption?: string } = {}): Promise<void> {
    const { columns, edges, size, rowHeight } = shape;
    const { writer, cell } = this;
    const drawTitles = () => {
      writer.fill(this.left - 3, this.y, this.contentWidth + 6, rowHeight, GRAY.header);
      columns.forEach((column, i) => {
        const edge = edges[i] as { left: number; right: number };
        writer.text(cell.bold, size, column.title, column.align === 'right' ? edge.right : edge.left, this.y + ROW_PADDING, { align: column.align });
      });
      this.y += rowHeight;
    };
    // A short table is kept on one page; a long one starts where at least its first rows fit.
    const captionHeight = options.caption === undefined ? 0 : CAPTION_HEIGHT + 4;
    const whole = captionHeight + rowHeight * (1 + rows.length);
    this.keepTogether(whole, captionHeight + 3 * rowHeight);
    if (options.caption !== undefined) this.caption(options.caption);
    drawTitles();
    this.continuation = () => {
      if (options.caption !== undefined) this.caption(`${options.caption} (continued)`);
      drawTitles();
    };
    try {
      let index = 0;
      for (const row of rows) {
        this.ensure(rowHeight);
        if (index % 2 === 1) writer.fill(this.left - 3, this.y, this.contentWidth + 6, rowHeight, GRAY.shade);
        const font = row.bold ? cell.bold : cell.regular;
        const top = this.y + ROW_PADDING;
        row.cells.forEach((text, i) => {
          const align = columns[i]?.align ?? 'left';
          writer.text(font, size, text, align === 'right' ? (edges[i]?.right ?? 0) : (edges[i]?.left ?? 0), top, { align });
        });
        if (row.label) writer.text(font, size, row.label.text, edges[row.label.column]?.left ?? this.left, top);
        this.y += rowHeight;
        index += 1;
        if (index % ROWS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.continuation = undefined;
    }
    this.writer.flush();
    this.y += 6;
  }

  /** A table's title, in the cell writer so it repeats cheaply on every page the table runs over. */
  caption(text: string): void {
    if (this.y > this.top) this.y += 4;
    this.writer.text(this.cell.bold, 9.5, text, this.left, this.y);
    this.y += CAPTION_HEIGHT;
  }

  /** A QR code of square modules, `size` points wide, its top-left corner at (x, y). */
  qr(matrix: boolean[][], x: number, y: number, size: number): void {
    const module = size / matrix.length;
    matrix.forEach((row, r) => {
      // Runs of dark modules in a row as one rectangle each: fewer operators, no hairline seams.
      for (let c = 0; c < row.length; ) {
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

  /** Renders everything drawn so far, after `decorate` has drawn on every page (running header, "page x of y"). */
  async finish(decorate: (page: number, pages: number) => void): Promise<Buffer> {
    this.writer.flush();
    const { count } = this.doc.bufferedPageRange();
    for (let page = 0; page < count; page++) {
      this.doc.switchToPage(page);
      decorate(page + 1, count);
      this.writer.flush();
    }
    const chunks: Buffer[] = [];
    this.doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve, reject) => {
      this.doc.on('end', resolve);
      this.doc.on('error', reject);
    });
    this.doc.end();
    await ended;
    return Buffer.concat(chunks);
  }
}

/** A gray level (0 black … 1 white) as the hex colour pdfkit's own text takes. */
export function grayColor(level: number): string {
  const byte = Math.round(level * 255)
    .toString(16)
    .padStart(2, '0');
  return `#${byte}${byte}${byte}`;
}
