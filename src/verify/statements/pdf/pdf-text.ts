/**
 * Fast single-line text for table cells, drawn with pdfkit's own embedded fonts but without its
 * text layout. `doc.text()` shapes every string with fontkit and wraps it in a dozen content
 * operators; a 10,000-transaction statement has 70,000 cells, and that path alone took about 2.5 s
 * (measured: 585 ms for the same cells written here). Cells are short, single-line, and never need
 * kerning or ligatures (digits, dates, hex), so each character is encoded once through the font
 * (which also adds its glyph to the embedded subset and to the ToUnicode map, so the text stays
 * searchable and copyable) and strings are the concatenation of their characters' glyphs.
 *
 * Glyph runs are written as literal strings of the two-byte glyph codes (`(…) Tj`), not as hex
 * (`<…> Tj`, pdfkit's way): half the bytes for the page streams to hold and compress, which is
 * where a long statement spends most of its time (issue 23: full txids and addresses in monospace).
 *
 * This reaches into pdfkit internals (`_font`, `page.fonts`, `addContent`): the dependency is
 * pinned to a minor version, and the statement tests read every page back with pdftotext.
 */
interface EmbeddedFontInternals {
  id: string;
  /** Ascender in 1/1000 em. */
  ascender: number;
  encode(text: string): [string[], { xAdvance: number }[]];
  ref(): unknown;
}

interface DocumentInternals {
  _font: EmbeddedFontInternals;
  page: { fonts: Record<string, unknown>; height: number };
  addContent(operators: string): void;
}

/**
 * Hex glyph codes (`0015001a`) as the bytes of a PDF literal string, escaped where the string's
 * syntax needs it: parentheses and backslash, and CR and LF (a reader would read either as LF).
 */
function literalBytes(hex: string): string {
  let bytes = '';
  for (let i = 0; i < hex.length; i += 2) {
    const byte = Number.parseInt(hex.slice(i, i + 2), 16);
    if (byte === 0x28 || byte === 0x29 || byte === 0x5c) bytes += `\\${String.fromCharCode(byte)}`;
    else if (byte === 0x0a) bytes += '\\n';
    else if (byte === 0x0d) bytes += '\\r';
    else bytes += String.fromCharCode(byte);
  }
  return bytes;
}

/** A font of the document, ready for {@link CellWriter}. */
export class CellFont {
  private readonly glyphs = new Map<string, { code: string; advance: number }>();

  constructor(readonly internals: EmbeddedFontInternals) {}

  /** Takes the font pdfkit has registered under `name`. */
  static of(doc: PDFKit.PDFDocument, name: string): CellFont {
    doc.font(name);
    return new CellFont((doc as unknown as DocumentInternals)._font);
  }

  private glyph(character: string): { code: string; advance: number } {
    let found = this.glyphs.get(character);
    if (!found) {
      const [hex, positions] = this.internals.encode(character);
      found = { code: literalBytes(hex.join('')), advance: positions.reduce((sum, p) => sum + p.xAdvance, 0) };
      this.glyphs.set(character, found);
    }
    return found;
  }

  /** The glyph codes of `text`, as the inside of a PDF literal string (binary, one char per byte), and its width in 1/1000 em. */
  encode(text: string): { code: string; width: number } {
    let code = '';
    let width = 0;
    for (const character of text) {
      const glyph = this.glyph(character);
      code += glyph.code;
      width += glyph.advance;
    }
    return { code, width };
  }

  /** Width of `text` at `size` points (measured without building its glyph run: tables measure every cell). */
  width(text: string, size: number): number {
    let width = 0;
    for (const character of text) width += this.glyph(character).advance;
    return (width * size) / 1000;
  }
}

const n = (value: number) => (Math.round(value * 100) / 100).toString();

/**
 * Collects the cells and fills of one page and writes them as one block of content operators:
 * the fills first, then every cell in one text object, in the order drawn (the reading order a
 * viewer's text selection follows; a font is selected only when it changes).
 * Coordinates are pdfkit's: points from the top-left corner; `y` is the top of the text line.
 */
export class CellWriter {
  private fills: string[] = [];
  private texts: string[] = [];
  private readonly fontsUsed = new Set<CellFont>();
  private font: { font: CellFont; size: number } | undefined;
  private textGray: number | undefined;
  private fillGray: number | undefined;

  constructor(private readonly doc: PDFKit.PDFDocument) {}

  private get internals(): DocumentInternals {
    return this.doc as unknown as DocumentInternals;
  }

  /** Text whose left edge is at `x` (or whose right edge is, with `align: 'right'`), in a gray level from 0 (black) to 1 (white). */
  text(font: CellFont, size: number, text: string, x: number, y: number, options: { align?: 'left' | 'right'; gray?: number } = {}): void {
    if (text === '') return;
    const { code, width } = font.encode(text);
    const left = options.align === 'right' ? x - (width * size) / 1000 : x;
    const baseline = this.internals.page.height - y - (font.internals.ascender * size) / 1000;
    const gray = options.gray ?? 0;
    if (this.textGray !== gray) this.texts.push(`${n(gray)} g`);
    this.textGray = gray;
    if (this.font?.font !== font || this.font.size !== size) this.texts.push(`/${font.internals.id} ${n(size)} Tf`);
    this.font = { font, size };
    this.texts.push(`1 0 0 1 ${n(left)} ${n(baseline)} Tm (${code}) Tj`);
    this.fontsUsed.add(font);
  }

  /** A filled rectangle (row shading, rules) in a gray level. */
  fill(x: number, y: number, width: number, height: number, gray: number): void {
    if (this.fillGray !== gray) this.fills.push(`${n(gray)} g`);
    this.fillGray = gray;
    this.fills.push(`${n(x)} ${n(this.internals.page.height - y - height)} ${n(width)} ${n(height)} re f`);
  }

  /** Writes what was collected onto the current page and starts afresh. */
  flush(): void {
    if (this.fills.length === 0 && this.texts.length === 0) return;
    const { page } = this.internals;
    for (const font of this.fontsUsed) page.fonts[font.internals.id] ??= font.internals.ref();
    // pdfkit draws in a flipped coordinate system; the block undoes the flip (as its own text
    // does) inside q/Q, so nothing leaks into what pdfkit draws next.
    const text = this.texts.length > 0 ? `BT\n${this.texts.join('\n')}\nET` : '';
    this.internals.addContent(`q 1 0 0 -1 0 ${n(page.height)} cm\n${this.fills.join('\n')}\n${text}\nQ`);
    this.fills = [];
    this.texts = [];
    this.fontsUsed.clear();
    this.font = undefined;
    this.textGray = undefined;
    this.fillGray = undefined;
  }
}
