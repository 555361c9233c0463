/**
 * A printed document written top to bottom: centred titles, label and value
 * pairs, table rows, rules. Every block is measured before it is drawn, so
 * that a wrapped name or note pushes what follows down instead of printing
 * over it, and on sheets a block that does not fit starts a new page. On a
 * roll the page is made as long as the document.
 */
import PDFDocument from 'pdfkit';
import type { PaperFonts } from './fonts';
import { Typesetter, type Align, type TextStyle } from './typeset';

export const MM = 72 / 25.4;

export interface PageFormat {
  width: number;
  /** Undefined: the page is as long as the document (a roll). */
  height?: number;
  margin: number;
  fontSize: number;
  titleSize: number;
}

export interface Cell {
  text: string;
  /** The cell's left and right edges, as fractions of the text width. */
  from: number;
  to: number;
  align?: Align;
}

/** Space between two cells, and between a pair's label and its value. */
const GUTTER = 4;

export class PageWriter {
  y: number;
  readonly left: number;
  readonly width: number;
  /** Written at the top of every page after the first. */
  onNewPage: () => void = () => undefined;
  private readonly set: Typesetter;
  /** While measuring (measure()): blocks move `y` and draw nothing, on one endless page. */
  private dry = false;

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    fonts: PaperFonts,
    private readonly format: PageFormat,
    private readonly pageHeight: number,
  ) {
    this.set = new Typesetter(doc, fonts);
    this.left = format.margin;
    this.width = format.width - 2 * format.margin;
    this.y = format.margin;
  }

  private style(options: { bold?: boolean; size?: number }): TextStyle {
    return { size: options.size ?? this.format.fontSize, bold: options.bold };
  }

  /** Starts a new page unless `height` fits on this one (a block taller than a page starts at its top). */
  private fit(height: number): void {
    if (!this.format.height || this.dry) return;
    if (this.y + height <= this.pageHeight - this.format.margin || this.y === this.format.margin) return;
    this.doc.addPage({ size: [this.format.width, this.pageHeight], margins: pageMargins(this.format) });
    this.y = this.format.margin;
    this.onNewPage();
  }

  centered(text: string, options: { bold?: boolean; size?: number } = {}): void {
    this.paragraph(text, { ...options, align: 'center' });
  }

  /** Text over the whole width; on sheets it may go on over the next page, line by line. */
  paragraph(text: string, options: { bold?: boolean; size?: number; align?: Align } = {}): void {
    const style = this.style(options);
    for (const line of this.set.lines(text, this.width, style)) {
      this.fit(this.set.lineHeight(style));
      if (!this.dry) this.set.draw([line], this.left, this.y, this.width, style, options.align);
      this.y += this.set.lineHeight(style);
    }
    this.y += 1;
  }

  /** `label` on the left and `value` on the right, each wrapping in its own column. */
  pair(label: string, value: string, options: { bold?: boolean } = {}): void {
    const style = this.style(options);
    const valueWidth = Math.min(this.set.width(value, style), this.width * 0.62);
    const labelWidth = this.width - valueWidth - GUTTER;
    const labelLines = this.set.lines(label, labelWidth, style);
    const valueLines = this.set.lines(value, valueWidth, style);
    const height = this.set.height(labelLines.length > valueLines.length ? labelLines : valueLines, style);
    this.fit(height);
    if (!this.dry) {
      this.set.draw(labelLines, this.left, this.y, labelWidth, style);
      this.set.draw(valueLines, this.left + this.width - valueWidth, this.y, valueWidth, style, 'right');
    }
    this.y += height + 1.5;
  }

  /** Cells side by side, each wrapping in its own column; the row is as tall as its tallest cell. */
  row(cells: Cell[], options: { bold?: boolean; size?: number } = {}): void {
    const style = this.style(options);
    const boxes = cells.map((cell) => {
      const x = this.left + cell.from * this.width + (cell.from > 0 ? GUTTER / 2 : 0);
      const width =
        (cell.to - cell.from) * this.width - (cell.from > 0 ? GUTTER / 2 : 0) - (cell.to < 1 ? GUTTER / 2 : 0);
      return { ...cell, x, width, lines: this.set.lines(cell.text, width, style) };
    });
    const height = Math.max(...boxes.map((box) => this.set.height(box.lines, style)));
    this.fit(height);
    if (!this.dry) for (const box of boxes) this.set.draw(box.lines, box.x, this.y, box.width, style, box.align);
    this.y += height + 2;
  }

  rule(): void {
    this.fit(6);
    this.y += 2;
    if (!this.dry)
      this.doc
        .moveTo(this.left, this.y)
        .lineTo(this.left + this.width, this.y)
        .lineWidth(0.5)
        .strokeColor('#555555')
        .stroke();
    this.y += 4;
  }

  gap(points: number): void {
    this.y += points;
  }

  /** On sheets, starts a new page unless the next `height` points fit on this one: a block kept together. */
  keep(height: number): void {
    this.fit(height);
  }

  /** How tall `block` would be, drawn from here on one page; nothing is drawn. */
  measure(block: () => void): number {
    const [y, dry] = [this.y, this.dry];
    this.dry = true;
    try {
      block();
      return this.y - y;
    } finally {
      [this.y, this.dry] = [y, dry];
    }
  }

  /**
   * `block` on one page: on a new one unless it fits on this one, so that what
   * ends a document (its totals and footer, the signatures) never stands alone
   * on a page. A block taller than a page goes on from here.
   */
  together(block: () => void): void {
    const height = this.measure(block);
    if (this.format.height && height <= this.pageHeight - 2 * this.format.margin) this.keep(height);
    block();
  }

  /** A signature line with its date for each role, `gap` points below what precedes them, kept on one page. */
  signatures(roles: readonly string[], gap: number): void {
    this.keep(gap + roles.length * 40);
    this.gap(gap);
    for (const role of roles) {
      this.gap(22);
      this.row([
        { text: this.blank(`${role}: `, 0.6, 40), from: 0, to: 0.6 },
        { text: this.blank('Date: ', 0.4, 16), from: 0.6, to: 1, align: 'right' },
      ]);
    }
  }

  /** `label` and a line to write on: at most `most` underscores, as many as fit in `share` of the width. */
  private blank(label: string, share: number, most: number): string {
    const style = this.style({});
    const room = share * this.width - GUTTER / 2 - this.set.width(label, style);
    return `${label}${'_'.repeat(Math.max(4, Math.min(most, Math.floor(room / this.set.width('_', style)) - 1)))}`;
  }

  /** A drawing `height` points tall over the whole width (a QR code), from the top of what is left. */
  drawing(
    height: number,
    draw: (doc: PDFKit.PDFDocument, box: { left: number; top: number; width: number }) => void,
  ): void {
    this.fit(height);
    if (!this.dry) draw(this.doc, { left: this.left, top: this.y, width: this.width });
    this.y += height;
  }
}

/** No bottom margin for pdfkit: the writer keeps its own, so that pdfkit never breaks a page by itself. */
function pageMargins(format: PageFormat) {
  return { top: format.margin, left: format.margin, right: format.margin, bottom: 0 };
}

export interface DocumentInfo {
  Title: string;
  Subject: string;
}

function render(
  fonts: PaperFonts,
  format: PageFormat,
  pageHeight: number,
  info: DocumentInfo,
  layOut: (w: PageWriter) => void,
): { doc: PDFKit.PDFDocument; height: number } {
  const doc = new PDFDocument({ size: [format.width, pageHeight], margins: pageMargins(format), info });
  const writer = new PageWriter(doc, fonts, format, pageHeight);
  layOut(writer);
  return { doc, height: writer.y + format.margin / 2 };
}

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}

/** The document `layOut` writes, as PDF bytes: on sheets of the format, or on a roll as long as it. */
export function renderPdf(
  fonts: PaperFonts,
  format: PageFormat,
  info: DocumentInfo,
  layOut: (w: PageWriter) => void,
): Promise<Buffer> {
  if (format.height) return collect(render(fonts, format, format.height, info, layOut).doc);
  // A roll: measured on a page long enough for any bill, then set on a page of that length.
  const measured = render(fonts, format, 100_000, info, layOut);
  measured.doc.end();
  return collect(render(fonts, format, Math.ceil(measured.height), info, layOut).doc);
}
