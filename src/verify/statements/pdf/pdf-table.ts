/**
 * Tables of a statement PDF, as pieces of the layout's flow: columns that fit their widest value,
 * cells of one or more lines, an optional detail under a row (a transaction's full id and
 * counterparties, wrapped in monospace), sections with captions, and column titles and captions
 * repeated on every page a table runs over.
 */
import { GRAY, keepOf, type Continuation, type FontName, type PdfLayout, type Piece } from './pdf-layout.js';

export interface Column {
  title: string;
  align: 'left' | 'right';
}

/** A run of a row's detail: ids, addresses and hashes in monospace, words in the regular face. */
export interface DetailPart {
  text: string;
  mono?: boolean;
  /** Starts a new line with the part after it rather than end a line alone ("from" before an address). */
  withNext?: boolean;
}

export interface Row {
  /** One text per column; a cell of several lines (a date above its time) is an array. */
  cells: readonly (string | readonly string[])[];
  /** Opening, closing and total rows. */
  bold?: boolean;
  /**
   * Text written from the left edge of column `column` across `span` columns (left empty in this
   * row): "Opening balance" across the movement and block columns.
   */
  label?: { column: number; span: number; text: string };
  /**
   * Written under the row's cells right of column `column` (from its second line on, or below a
   * cell of two lines there: a BTC amount above its value), starting just right of column
   * `column` and running to the right margin, wrapped between parts (a part longer than a line is cut).
   */
  detail?: { column: number; parts: readonly DetailPart[] } | undefined;
}

/** A table's title and rows; a table of several sections (the months) shares one set of columns. */
export interface TableSection {
  caption?: string | undefined;
  rows: readonly Row[];
  /** Column titles above the rows (default); off for a section that is one sentence ("No transactions"). */
  titles?: boolean;
}

/** Where a table's columns are and how large its text is: shared by tables that must line up. */
export interface TableShape {
  columns: Column[];
  edges: { left: number; right: number }[];
  size: number;
  /** A row of one line. */
  rowHeight: number;
  /** Each further line of a row. */
  lineHeight: number;
  /** The detail's size (monospace is wider than the regular face: a full txid must fit beside an address). */
  detailSize: number;
}

/** Table text size, and the smallest it shrinks to so that very large amounts still fit the page. */
const CELL_SIZE = 7.5;
const MIN_CELL_SIZE = 5.5;
const ROW_PADDING = 3;
const CELL_GAP = 9;
const CAPTION_HEIGHT = 15;
const CAPTION_GAP = 4;
const LINE_SPACING = 1.2;
const DETAIL_SCALE = 6.5 / 7.5;

const linesOf = (cell: string | readonly string[]): readonly string[] => (typeof cell === 'string' ? [cell] : cell);

/**
 * Column positions that fit the widest cell line (or title) of `rows`: the spare width goes to the
 * gaps, so amounts spread across the page. When the columns together are wider than the page (very
 * large amounts), the text shrinks until they fit. A row's detail wraps instead and widens nothing.
 */
export function tableShape(layout: PdfLayout, columns: Column[], rows: Iterable<Row>): TableShape {
  const { cell } = layout;
  const natural = columns.map((column) => cell.bold.width(column.title, CELL_SIZE));
  const labels: { label: NonNullable<Row['label']>; width: number }[] = [];
  for (const row of rows) {
    const font = row.bold ? cell.bold : cell.regular;
    row.cells.forEach((text, i) => {
      for (const line of linesOf(text)) if (line !== '') natural[i] = Math.max(natural[i] ?? 0, font.width(line, CELL_SIZE));
    });
    if (row.label) labels.push({ label: row.label, width: font.width(row.label.text, CELL_SIZE) });
  }
  // A label must fit the columns it spans: the last of them widens as far as needed.
  for (const { label, width } of labels) {
    const { column, span } = label;
    const spanned = natural.slice(column, column + span).reduce((sum, w) => sum + w, 0) + CELL_GAP * (span - 1);
    const missing = width - spanned;
    if (missing > 0) natural[column + span - 1] = (natural[column + span - 1] ?? 0) + missing;
  }
  const gaps = CELL_GAP * (columns.length - 1);
  const text = natural.reduce((sum, w) => sum + w, 0);
  const size = Math.max(MIN_CELL_SIZE, Math.min(CELL_SIZE, (CELL_SIZE * (layout.contentWidth - gaps)) / text));
  const scale = size / CELL_SIZE;
  const gap = columns.length > 1 ? Math.max(0, layout.contentWidth - text * scale) / (columns.length - 1) : 0;
  const edges: { left: number; right: number }[] = [];
  let x = layout.left;
  for (const w of natural) {
    edges.push({ left: x, right: x + w * scale });
    x += w * scale + gap;
  }
  return { columns, edges, size, rowHeight: size + 2 * ROW_PADDING, lineHeight: size * LINE_SPACING, detailSize: size * DETAIL_SCALE };
}

/** A detail part placed on its line: its text, face and distance from the detail's left edge. */
interface PlacedPart {
  text: string;
  font: FontName;
  dx: number;
}

/** Packs the detail's parts into lines `width` points wide, a space between parts; a part wider than a line is cut. */
function wrapDetail(layout: PdfLayout, parts: readonly DetailPart[], width: number, size: number): PlacedPart[][] {
  const lines: PlacedPart[][] = [];
  let line: PlacedPart[] = [];
  let x = 0;
  const space = layout.cell.regular.width(' ', size);
  const place = (text: string, font: FontName, w: number) => {
    const dx = line.length === 0 ? 0 : x + space;
    if (line.length > 0 && dx + w > width) {
      lines.push(line);
      line = [{ text, font, dx: 0 }];
      x = w;
    } else {
      line.push({ text, font, dx });
      x = dx + w;
    }
  };
  const widthOf = (part: DetailPart) => layout.cell[part.mono ? 'mono' : 'regular'].width(part.text, size);
  parts.forEach((part, i) => {
    const font: FontName = part.mono ? 'mono' : 'regular';
    let text = part.text;
    let w = layout.cell[font].width(text, size);
    const next = parts[i + 1];
    if (part.withNext && next && line.length > 0 && x + space + w + space + widthOf(next) > width) {
      lines.push(line);
      line = [];
      x = 0;
    }
    while (w > width && text.length > 1) {
      // Too long for any line: cut where it fills one (monospace, so characters are equal).
      const fits = Math.max(1, Math.floor((text.length * width) / w));
      place(text.slice(0, fits), font, layout.cell[font].width(text.slice(0, fits), size));
      text = text.slice(fits);
      w = layout.cell[font].width(text, size);
    }
    place(text, font, w);
  });
  if (line.length > 0) lines.push(line);
  return lines;
}

/**
 * A table as pieces of the flow: a short section is kept on one page, a long one starts where its
 * caption, titles and first rows fit; on each new page a section runs over, its caption (with
 * "continued") and the column titles are drawn again.
 */
export function tablePieces(layout: PdfLayout, shape: TableShape, sections: readonly TableSection[]): Piece[] {
  const { columns, edges, size, rowHeight, lineHeight, detailSize } = shape;
  const { writer, cell } = layout;
  // Detail runs sit on the cells' baseline though smaller and in another face.
  const detailDrop = (font: FontName) => (cell.regular.internals.ascender * size - cell[font].internals.ascender * detailSize) / 1000;
  const titlesPiece = (): Piece => ({
    height: rowHeight,
    draw: (y) => {
      writer.fill(layout.left - 3, y, layout.contentWidth + 6, rowHeight, GRAY.header);
      columns.forEach((column, i) => {
        const edge = edges[i] as { left: number; right: number };
        writer.text(cell.bold, size, column.title, column.align === 'right' ? edge.right : edge.left, y + ROW_PADDING, {
          align: column.align,
        });
      });
    },
  });
  const captionPiece = (text: string): Piece => ({
    height: CAPTION_GAP + CAPTION_HEIGHT,
    draw: (y) => writer.text(cell.bold, 9.5, text, layout.left, y + CAPTION_GAP),
  });

  const pieces: Piece[] = [];
  for (const section of sections) {
    const head: Piece[] = [];
    if (section.caption !== undefined) head.push(captionPiece(section.caption));
    if (section.titles !== false) head.push(titlesPiece());
    const continuedHead = [
      ...(section.caption !== undefined ? [captionPiece(`${section.caption} (continued)`)] : []),
      ...(section.titles !== false ? [titlesPiece()] : []),
    ];
    const continued: Continuation = {
      height: continuedHead.reduce((sum, p) => sum + p.height, 0),
      draw: (y) => {
        let top = y;
        for (const piece of continuedHead) {
          piece.draw(top);
          top += piece.height;
        }
      },
    };
    const rows = section.rows.map((row, index): Piece => {
      const detailX = row.detail ? (edges[row.detail.column]?.right ?? layout.left) + CELL_GAP : 0;
      // Wrapped again when drawn rather than kept: ten thousand rows' placed parts, held until the
      // last page is drawn, were the largest share of the layout's memory.
      const wrapped = () => (row.detail ? wrapDetail(layout, row.detail.parts, layout.right - detailX, detailSize) : []);
      // The first line free under every cell the detail runs beneath.
      const detailLine = row.detail ? Math.max(1, ...row.cells.slice(row.detail.column + 1).map((c) => linesOf(c).length)) : 1;
      const lines = Math.max(1, ...row.cells.map((c) => linesOf(c).length), detailLine + wrapped().length);
      const height = rowHeight + (lines - 1) * lineHeight;
      return {
        height,
        continued,
        draw: (y) => {
          if (index % 2 === 1) writer.fill(layout.left - 3, y, layout.contentWidth + 6, height, GRAY.shade);
          const font = row.bold ? cell.bold : cell.regular;
          const top = y + ROW_PADDING;
          row.cells.forEach((text, i) => {
            const align = columns[i]?.align ?? 'left';
            const x = align === 'right' ? (edges[i]?.right ?? 0) : (edges[i]?.left ?? 0);
            linesOf(text).forEach((line, l) => writer.text(font, size, line, x, top + l * lineHeight, { align }));
          });
          if (row.label) writer.text(font, size, row.label.text, edges[row.label.column]?.left ?? layout.left, top);
          wrapped().forEach((parts, l) => {
            for (const part of parts)
              writer.text(
                cell[part.font],
                detailSize,
                part.text,
                detailX + part.dx,
                top + (detailLine + l) * lineHeight + detailDrop(part.font),
                { gray: GRAY.detail },
              );
          });
        },
      };
    });
    const heightOf = (list: readonly Piece[]) => list.reduce((sum, p) => sum + p.height, 0);
    const start = head[0] ?? rows[0];
    if (start) start.keep = keepOf(heightOf(head) + heightOf(rows), heightOf(head) + heightOf(rows.slice(0, 3)), layout.bodyHeight);
    for (const piece of head) pieces.push(piece);
    for (const piece of rows) pieces.push(piece);
    pieces.push({ height: 6, space: true, draw: () => undefined });
  }
  return pieces;
}

/** A table of one section. */
export function table(layout: PdfLayout, shape: TableShape, rows: readonly Row[], caption?: string): void {
  layout.add(tablePieces(layout, shape, [{ caption, rows }]));
}
