/**
 * Lines of text in several scripts on a pdfkit page: each run in its own
 * font on one baseline, wrapped where Unicode allows a line to end (UAX #14,
 * the `linebreak` package pdfkit uses), and a word wider than the column
 * broken between grapheme clusters, never inside a syllable.
 */
import LineBreaker from 'linebreak';
import type { FontScript, FontWeight, PaperFonts } from './fonts';
import { scriptRuns, type ScriptRun } from './script-runs';
import { showText, textWidth } from './text-layer';

export interface TextStyle {
  size: number;
  bold?: boolean;
}

export interface SetLine {
  runs: Array<ScriptRun & { width: number }>;
  width: number;
}

/** The fonts' tallest ascender and deepest descender (Tamil's), per 1000 units of the size. */
const ASCENT = 1069;
const DESCENT = 370;
/** Between two lines of a block, beyond the fonts' extent. */
const LINE_GAP = 0.12;

const fontName = (script: FontScript, weight: FontWeight) => `${weight}-${script}`;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

export class Typesetter {
  constructor(
    private readonly doc: PDFKit.PDFDocument,
    fonts: PaperFonts,
  ) {
    for (const weight of ['regular', 'bold'] as const)
      for (const script of ['latin', 'sinhala', 'tamil'] as const)
        doc.registerFont(fontName(script, weight), fonts[weight][script] as never);
  }

  /** Distance between the baselines of two lines, and from a line's top to its baseline. */
  lineHeight(style: TextStyle): number {
    return ((ASCENT + DESCENT) / 1000 + LINE_GAP) * style.size;
  }

  ascent(style: TextStyle): number {
    return (ASCENT / 1000) * style.size;
  }

  private use(script: FontScript, style: TextStyle): void {
    this.doc.font(fontName(script, style.bold ? 'bold' : 'regular')).fontSize(style.size);
  }

  private measured(text: string, style: TextStyle): SetLine {
    const runs = scriptRuns(text).map((run) => {
      this.use(run.script, style);
      return { ...run, width: textWidth(this.doc, run.text) };
    });
    return { runs, width: runs.reduce((sum, run) => sum + run.width, 0) };
  }

  width(text: string, style: TextStyle): number {
    return this.measured(text, style).width;
  }

  /** `text` in lines no wider than `width`: its own line breaks kept, the rest where Unicode allows. */
  lines(text: string, width: number, style: TextStyle): SetLine[] {
    const lines: SetLine[] = [];
    for (const paragraph of text.split(/\r\n|\r|\n/)) {
      let current = '';
      for (const segment of breakableSegments(paragraph)) {
        if (this.fits(current + segment, width, style)) {
          current += segment;
          continue;
        }
        if (current.trim() !== '') lines.push(this.measured(current.trimEnd(), style));
        current = '';
        // A segment wider than the column on its own: as many grapheme clusters per line as fit.
        for (const { segment: cluster } of graphemes.segment(segment.trimStart())) {
          if (current !== '' && !this.fits(current + cluster, width, style)) {
            lines.push(this.measured(current.trimEnd(), style));
            current = cluster.trimStart();
          } else current += cluster;
        }
      }
      lines.push(this.measured(current.trimEnd(), style));
    }
    return lines;
  }

  private fits(text: string, width: number, style: TextStyle): boolean {
    return this.width(text.trimEnd(), style) <= width + 0.01;
  }

  /** The height `lines(text)` take. */
  height(lines: SetLine[], style: TextStyle): number {
    return lines.length * this.lineHeight(style);
  }

  /** Draws lines from `top`, each aligned in [x, x + width], every run of a line on one baseline. */
  draw(lines: SetLine[], x: number, top: number, width: number, style: TextStyle, align: Align = 'left'): void {
    lines.forEach((line, i) => {
      const baseline = top + i * this.lineHeight(style) + this.ascent(style);
      let left = align === 'left' ? x : align === 'right' ? x + width - line.width : x + (width - line.width) / 2;
      for (const run of line.runs) {
        this.use(run.script, style);
        showText(this.doc, run.text, left, baseline);
        left += run.width;
      }
    });
  }
}

export type Align = 'left' | 'right' | 'center';

/** A paragraph cut where a line may end, each piece with its trailing spaces. */
function breakableSegments(paragraph: string): string[] {
  const segments: string[] = [];
  const breaker = new LineBreaker(paragraph);
  let last = 0;
  for (let next = breaker.nextBreak(); next; next = breaker.nextBreak()) {
    segments.push(paragraph.slice(last, next.position));
    last = next.position;
  }
  return segments;
}
