/**
 * Draws a run of text word by word, each word's glyphs inside a marked-content
 * Span whose ActualText is the word as written: what pdftotext, search and
 * copy give back, whatever order HarfBuzz drew the glyphs in (a Sinhala or
 * Tamil vowel sign drawn before its consonant, a conjunct of several letters).
 *
 * pdfkit's `text()` wraps its text object in `q`/`Q`; a Span around that call
 * ends outside the text state, and poppler then places the ActualText upside
 * down at the page's other edge. So the text object is written here, the Span
 * inside it, with pdfkit's own font (subset, widths, ToUnicode) doing the rest.
 * This is the one place that reaches into pdfkit's internals (`_font`,
 * `page.fonts`); tests/e2e/paper-text.test.ts fails if a pdfkit release moves them.
 */

/** What pdfkit's embedded font offers beyond its types: the glyphs and positions HarfBuzz chose, as hex codes. */
interface EmbeddedFont {
  id: string;
  ref(): unknown;
  encode(text: string): [string[], Array<{ xAdvance: number; advanceWidth: number; xOffset: number; yOffset: number }>];
}

interface FontState {
  _font: EmbeddedFont;
  _fontSize: number;
  page: { height: number; fonts: Record<string, unknown> };
}

/** A run cut into words and the blanks between them; both measure and draw walk these pieces. */
export function textPieces(text: string): Array<{ text: string; blank: boolean }> {
  return text
    .split(/([ \t]+)/)
    .filter((piece) => piece !== '')
    .map((piece) => ({ text: piece, blank: /^[ \t]+$/.test(piece) }));
}

const number = (value: number) => String(Math.round(value * 10_000) / 10_000);

/** Width of `text` in the document's current font and size, as `showText` advances over it. */
export function textWidth(doc: PDFKit.PDFDocument, text: string): number {
  return textPieces(text).reduce((sum, piece) => sum + doc.widthOfString(piece.text), 0);
}

/** Draws `text` in the current font and size with its baseline at `baseline` (top-down coordinates) from `x`. */
export function showText(doc: PDFKit.PDFDocument, text: string, x: number, baseline: number): void {
  const state = doc as unknown as FontState;
  const font = state._font;
  const size = state._fontSize;
  state.page.fonts[font.id] ??= font.ref();
  const y = state.page.height - baseline;
  let left = x;
  for (const piece of textPieces(text)) {
    if (!piece.blank) {
      const [glyphs, positions] = font.encode(piece.text);
      doc.save();
      // Back to PDF's bottom-up space for the text object, as pdfkit's text() does.
      doc.transform(1, 0, 0, -1, 0, state.page.height);
      doc.addContent('BT');
      doc.addContent(`/${font.id} ${number(size)} Tf`);
      doc.addContent(`1 0 0 1 ${number(left)} ${number(y)} Tm`);
      doc.markContent('Span', { actual: piece.text } as PDFKit.Mixins.MarkingOptions);
      writeGlyphs(doc, glyphs, positions, left, y, size / 1000);
      doc.endMarkedContent();
      doc.addContent('ET');
      doc.restore();
    }
    left += doc.widthOfString(piece.text);
  }
}

/** The glyphs as TJ arrays; a glyph HarfBuzz moved off the baseline (a mark) gets its own text matrix. */
function writeGlyphs(
  doc: PDFKit.PDFDocument,
  glyphs: string[],
  positions: ReturnType<EmbeddedFont['encode']>[1],
  x: number,
  y: number,
  scale: number,
): void {
  const pending: string[] = [];
  const flush = () => {
    if (pending.length > 0) doc.addContent(`[${pending.join(' ')}] TJ`);
    pending.length = 0;
  };
  let pen = x;
  positions.forEach((position, i) => {
    const glyph = glyphs[i]!;
    if (position.xOffset || position.yOffset) {
      flush();
      doc.addContent(`1 0 0 1 ${number(pen + position.xOffset * scale)} ${number(y + position.yOffset * scale)} Tm`);
      doc.addContent(`[<${glyph}>] TJ`);
      doc.addContent(`1 0 0 1 ${number(pen + position.xAdvance * scale)} ${number(y)} Tm`);
    } else {
      // TJ's number moves the pen back by thousandths of the size: HarfBuzz's advance against the glyph's own.
      pending.push(`<${glyph}> ${number(position.advanceWidth - position.xAdvance)}`);
    }
    pen += position.xAdvance * scale;
  });
  flush();
}
