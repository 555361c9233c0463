/**
 * The fonts printed documents are set in: Noto Sans, Noto Sans Sinhala and
 * Noto Sans Tamil (OFL), from the npm packages of Google Fonts' TrueType
 * files, shaped by HarfBuzz (harfbuzzjs) and embedded by pdfkit.
 *
 * Why HarfBuzz and not fontkit's own shaper: on these very files fontkit
 * 2.0.4 gives HarfBuzz's glyphs for every Tamil syllable and for Sinhala's
 * vowel signs, conjuncts, rakaransaya and yansaya, but not for the repaya
 * (ර + al-lakuna + ZWJ + a consonant: it prints ර් and the consonant) nor the
 * ligature of ර with yansaya, and it drops a few kerning pairs (docs/PAPER.md).
 * pdfkit takes a font object whose `layout` is ours (PDFFontFactory), so it
 * still subsets, embeds and measures the glyphs HarfBuzz chose.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as fontkit from 'fontkit';

/** The scripts a run of text can be set in, each with its own font. */
export type FontScript = 'latin' | 'sinhala' | 'tamil';
export type FontWeight = 'regular' | 'bold';

const FILES: Record<FontScript, { pkg: string; regular: string; bold: string }> = {
  latin: { pkg: 'noto-sans', regular: 'NotoSans_400Regular', bold: 'NotoSans_700Bold' },
  sinhala: { pkg: 'noto-sans-sinhala', regular: 'NotoSansSinhala_400Regular', bold: 'NotoSansSinhala_700Bold' },
  tamil: { pkg: 'noto-sans-tamil', regular: 'NotoSansTamil_400Regular', bold: 'NotoSansTamil_700Bold' },
};

/** Where a font's TrueType file is, in its npm package. */
export function fontFile(script: FontScript, weight: FontWeight): string {
  const { pkg, ...names } = FILES[script];
  const root = dirname(require.resolve(`@expo-google-fonts/${pkg}/package.json`));
  const name = names[weight];
  return join(root, name.slice(name.indexOf('_') + 1), `${name}.ttf`);
}

/** The part of harfbuzzjs used here (an ES module, loaded once with import()). */
type HarfBuzz = typeof import('harfbuzzjs', { with: { 'resolution-mode': 'import' }});

/** A font for pdfkit.registerFont: fontkit's tables and glyphs, HarfBuzz's shaping. */
export type ShapedFont = fontkit.Font;

/** Every font of every script and weight, ready for pdfkit; loaded once per process. */
export type PaperFonts = Record<FontWeight, Record<FontScript, ShapedFont>>;

/**
 * Replaces fontkit's layout with HarfBuzz's: the glyphs, their offsets and
 * advances in font units, as fontkit's GlyphRun has them.
 *
 * The PDF's ToUnicode map holds one text per glyph for the whole document,
 * set at the glyph's first use (fontkit keeps a glyph object per id), so it
 * cannot follow context: the text layer comes from each word's ActualText
 * (text-layer.ts), and the map is what tools that ignore it read. There, a
 * glyph of the font's cmap stands for its own character; one HarfBuzz made
 * of several (a conjunct) stands for those of its cluster left over, and one
 * with none left for a zero-width space, never for nothing (an empty entry
 * is an odd-length string to some readers).
 */
function shapeWithHarfBuzz(hb: HarfBuzz, font: fontkit.Font, data: Buffer): ShapedFont {
  const hbFont = new hb.Font(new hb.Face(new hb.Blob(data)));
  const buffer = new hb.Buffer();
  // Every glyph of the cmap created once with its own character, before any layout.
  for (const codePoint of font.characterSet) font.glyphForCodePoint(codePoint);
  // pdfkit reads glyphs (id, advanceWidth, codePoints) and positions (in font units) of what layout returns.
  font.layout = ((text: string) => {
    buffer.reset();
    buffer.addText(text);
    buffer.guessSegmentProperties();
    hb.shape(hbFont, buffer);
    const infos = buffer.getGlyphInfos();
    const codePoints = new Map<number, number[]>();
    // Clusters are UTF-16 offsets into `text`, ascending (left to right).
    infos.forEach((info, i) => {
      if (i > 0 && infos[i - 1]!.cluster === info.cluster) return;
      const end = infos.slice(i + 1).find((next) => next.cluster !== info.cluster)?.cluster ?? text.length;
      const members = infos.map((g, j) => ({ g, j })).filter(({ g }) => g.cluster === info.cluster);
      const left = Array.from(text.slice(info.cluster, end), (c) => c.codePointAt(0)!);
      for (const { g, j } of members) {
        const own = left.findIndex((cp) => font.glyphForCodePoint(cp).id === g.codepoint);
        codePoints.set(j, own >= 0 ? left.splice(own, 1) : []);
      }
      const combined = members.find(({ j }) => codePoints.get(j)!.length === 0);
      if (combined) codePoints.set(combined.j, left);
    });
    const glyphs = infos.map((info, i) => {
      const own = codePoints.get(i) ?? [];
      return font.getGlyph(info.codepoint, own.length > 0 ? own : [ZERO_WIDTH_SPACE]);
    });
    const positions = buffer.getGlyphPositions().map((p) => ({
      xAdvance: p.xAdvance,
      yAdvance: p.yAdvance,
      xOffset: p.xOffset,
      yOffset: p.yOffset,
    }));
    return { glyphs, positions, advanceWidth: positions.reduce((sum, p) => sum + p.xAdvance, 0) };
  }) as unknown as fontkit.Font['layout'];
  return font;
}

const ZERO_WIDTH_SPACE = 0x200b;

let loading: Promise<PaperFonts> | null = null;

/** Reads the six font files and starts HarfBuzz; fails at start-up, not on the first receipt, when one is missing. */
export function loadPaperFonts(): Promise<PaperFonts> {
  loading ??= (async () => {
    const hb = await import('harfbuzzjs');
    const load = (script: FontScript, weight: FontWeight) => {
      const data = readFileSync(fontFile(script, weight));
      return shapeWithHarfBuzz(hb, fontkit.create(data) as fontkit.Font, data);
    };
    const weights = (weight: FontWeight) => ({
      latin: load('latin', weight),
      sinhala: load('sinhala', weight),
      tamil: load('tamil', weight),
    });
    return { regular: weights('regular'), bold: weights('bold') };
  })();
  return loading;
}
