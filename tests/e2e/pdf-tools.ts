/**
 * Reading printed documents back with Debian's own tools, independently of
 * the code that made them: poppler's pdffonts, pdftotext -bbox and pdftoppm,
 * and HarfBuzz's hb-view for text shaped and drawn without our code.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import zlib from 'node:zlib';

export class PdfTools {
  private readonly dir = mkdtempSync(join(tmpdir(), 'clinic-pdf-'));
  private serial = 0;

  file(pdf: Buffer): string {
    const path = join(this.dir, `${++this.serial}.pdf`);
    writeFileSync(path, pdf);
    return path;
  }

  /** Embedded fonts by name (subset prefix removed), with pdffonts' `emb` column. */
  fonts(pdf: Buffer): Array<{ name: string; embedded: boolean }> {
    const lines = execFileSync('pdffonts', [this.file(pdf)], { encoding: 'utf8' })
      .split('\n')
      .slice(2);
    return lines
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [name, ...rest] = line.trim().split(/\s+/);
        return { name: name!.replace(/^[A-Z]{6}\+/, ''), embedded: rest.at(-5) === 'yes' };
      });
  }

  /** Every word poppler finds, with its box and page, and each page's size. */
  words(pdf: Buffer): { pages: Array<{ width: number; height: number }>; words: Word[] } {
    const html = execFileSync('pdftotext', ['-bbox', this.file(pdf), '-'], { encoding: 'utf8' });
    const pages: Array<{ width: number; height: number }> = [];
    const words: Word[] = [];
    for (const m of html.matchAll(
      /<page width="([\d.]+)" height="([\d.]+)">|<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
    )) {
      if (m[1]) pages.push({ width: Number(m[1]), height: Number(m[2]) });
      else
        words.push({
          page: pages.length,
          xMin: Number(m[3]),
          yMin: Number(m[4]),
          xMax: Number(m[5]),
          yMax: Number(m[6]),
          text: m[7]!
            .replaceAll('&amp;', '&')
            .replaceAll('&lt;', '<')
            .replaceAll('&gt;', '>')
            .replaceAll('&quot;', '"'),
        });
    }
    return { pages, words };
  }

  /** The text layer as a reader copies it (pdftotext, reading order), spaces squeezed, one line per line. */
  text(pdf: Buffer, mode: '-raw' | '-layout' | null = null): string {
    const args = [...(mode ? [mode] : []), this.file(pdf), '-'];
    return execFileSync('pdftotext', args, { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim().replace(/\s+/g, ' '))
      .filter(Boolean)
      .join('\n');
  }

  /** Each page's lines as poppler lays them out (pdftotext -layout), spaces squeezed. */
  pageLines(pdf: Buffer): string[][] {
    const file = this.file(pdf);
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
      .split('\f')
      .slice(0, -1)
      .map((page) =>
        page
          .split('\n')
          .map((line) => line.trim().replace(/\s+/g, ' '))
          .filter(Boolean),
      );
  }

  /** A page rendered in grey levels at `dpi` (pdftoppm's PGM). */
  raster(pdf: Buffer, dpi: number, page = 1): Gray {
    const prefix = join(this.dir, `raster-${++this.serial}`);
    const pages = ['-f', String(page), '-l', String(page), '-singlefile'];
    execFileSync('pdftoppm', ['-r', String(dpi), '-gray', ...pages, this.file(pdf), prefix]);
    return readPgm(readFileSync(`${prefix}.pgm`));
  }

  /** `text` shaped and drawn by hb-view alone in `fontPath` at `size` points, rendered like a page. */
  hbView(fontPath: string, text: string, size: number, dpi: number): Gray {
    const out = join(this.dir, `hb-${++this.serial}.pdf`);
    execFileSync('hb-view', [
      `--font-file=${fontPath}`,
      `--font-size=${size}`,
      '--margin=0',
      '-O',
      'pdf',
      '-o',
      out,
      text,
    ]);
    return this.raster(readFileSync(out), dpi);
  }

  remove(): void {
    if (!process.env.KEEP_E2E_DATA) rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Word {
  page: number;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
  text: string;
}

/** Pairs of words of a page whose boxes overlap by more than `tolerance` points either way. */
/** A PDF file's text as poppler lays it out (pdftotext -layout): one entry per line, spaces squeezed. */
export function layoutLines(file: string): string[] {
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
}

/** Each expected text is printed: a line of `printed` (its lines) or a part of it (its text); a failure names it. */
export function expectPrinted(printed: string | string[], expected: string[]): void {
  for (const text of expected) expect({ text, printed: printed.includes(text) }).toEqual({ text, printed: true });
}

export function overlaps(words: Word[], tolerance = 0.2): Array<[Word, Word]> {
  const found: Array<[Word, Word]> = [];
  words.forEach((a, i) => {
    for (const b of words.slice(i + 1)) {
      if (a.page !== b.page) continue;
      const x = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
      const y = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
      if (x > tolerance && y > tolerance) found.push([a, b]);
    }
  });
  return found;
}

/** The TrueType file of a font package the service prints with. */
export function notoFont(pkg: string, file: string): string {
  return join(dirname(require.resolve(`@expo-google-fonts/${pkg}/package.json`)), '400Regular', `${file}.ttf`);
}

export interface Gray {
  width: number;
  height: number;
  pixels: Uint8Array;
}

function readPgm(data: Buffer): Gray {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(data.subarray(0, 50).toString('latin1'))!;
  return { width: Number(header[1]), height: Number(header[2]), pixels: data.subarray(header[0].length) };
}

/** The part of `image` inside [x0, x1) x [y0, y1), cut to where it has ink (pixels darker than mid-grey). */
export function inkOf(image: Gray, x0 = 0, y0 = 0, x1 = image.width, y1 = image.height): Gray {
  let [left, top, right, bottom] = [x1, y1, x0 - 1, y0 - 1];
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++)
      if (image.pixels[y * image.width + x]! < 128) {
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
  const width = Math.max(0, right - left + 1);
  const height = Math.max(0, bottom - top + 1);
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) pixels[y * width + x] = image.pixels[(top + y) * image.width + left + x]!;
  return { width, height, pixels };
}

/** The share of ink pixels, in either image, that the other lacks (both aligned at their top left). */
export function inkDifference(a: Gray, b: Gray): number {
  let differ = 0;
  let ink = 0;
  for (let y = 0; y < Math.max(a.height, b.height); y++)
    for (let x = 0; x < Math.max(a.width, b.width); x++) {
      const pa = x < a.width && y < a.height && a.pixels[y * a.width + x]! < 128;
      const pb = x < b.width && y < b.height && b.pixels[y * b.width + x]! < 128;
      if (pa || pb) ink++;
      if (pa !== pb) differ++;
    }
  return ink === 0 ? 1 : differ / ink;
}

/**
 * Expects `text`, printed right of the word `label` on its line at `size` points, drawn as hb-view draws it alone
 * in the font of `pkg` and `file` (pdftotext gives Sinhala and Tamil back in drawing order, so they are compared drawn).
 */
export function expectDrawnAsHbView(
  tools: PdfTools,
  pdf: Buffer,
  label: Word,
  text: string,
  font: { pkg: string; file: string; size: number },
): void {
  const dpi = 600;
  const px = (points: number) => Math.round((points * dpi) / 72);
  const page = tools.raster(pdf, dpi);
  const printed = inkOf(page, px(label.xMax + 2), px(label.yMin - 1), page.width, px(label.yMax + 1));
  const independent = inkOf(tools.hbView(notoFont(font.pkg, font.file), text, font.size, dpi));
  expect(Math.abs(printed.width - independent.width)).toBeLessThanOrEqual(3);
  expect(Math.abs(printed.height - independent.height)).toBeLessThanOrEqual(3);
  expect(inkDifference(printed, independent)).toBeLessThan(0.15);
}

/** The whole text of a PDF in the order it is drawn (pdftotext -raw), each run of blanks and line breaks one space. */
export function flatText(tools: PdfTools, pdf: Buffer): string {
  return tools.text(pdf, '-raw').replace(/\s+/g, ' ');
}

/**
 * The pages that hold nothing but what repeats on every page or ends the paper (`furniture`: a continuation
 * header, the printed-by footer, signature lines): none should.
 */
export function furnitureOnlyPages(tools: PdfTools, pdf: Buffer, furniture: RegExp[]): number[] {
  return tools
    .pageLines(pdf)
    .map((lines, i) => ({ page: i + 1, body: lines.filter((line) => !furniture.some((f) => f.test(line))) }))
    .filter(({ body }) => body.length === 0)
    .map(({ page }) => page);
}

/** Every page of the PDF rendered by pdftoppm carries ink (none is blank). */
export function blankPages(tools: PdfTools, pdf: Buffer, pages: number): number[] {
  const blank: number[] = [];
  for (let page = 1; page <= pages; page++) {
    const gray = tools.raster(pdf, 30, page);
    if (!gray.pixels.some((p) => p < 128)) blank.push(page);
  }
  return blank;
}

/** A PNG of `size` x `size` pixels, a dark square on white: a logo for a letterhead. */
export function squarePng(size = 24): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(zlib.crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Array.from({ length: size }, (_, y) =>
    Buffer.from([
      0,
      ...Array.from({ length: size }, (_, x) => (x > 3 && x < size - 4 && y > 3 && y < size - 4 ? 20 : 255)),
    ]),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
