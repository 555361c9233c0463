/**
 * A QR code as the dark runs of its rows, in modules, for a page to draw as
 * rectangles (pdfkit has no QR code of its own): the `qrcode` package makes
 * the symbol, this lays it out. A run rather than a square per module: a
 * fifth of the rectangles, and no hairline seams between neighbours. Pure.
 */
import { create } from 'qrcode';

/** A dark run of one row: from column `x`, `width` modules wide. */
export interface QrRun {
  x: number;
  y: number;
  width: number;
}

export interface QrLayout {
  /** Modules per side, without the quiet zone. */
  size: number;
  runs: QrRun[];
}

/** The symbol of `text` (error correction M: a slip may be creased), as dark runs row by row. */
export function qrLayout(text: string): QrLayout {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const runs: QrRun[] = [];
  for (let y = 0; y < modules.size; y++) {
    let start = -1;
    for (let x = 0; x <= modules.size; x++) {
      const dark = x < modules.size && modules.get(y, x) === 1;
      if (dark && start < 0) start = x;
      if (!dark && start >= 0) {
        runs.push({ x: start, y, width: x - start });
        start = -1;
      }
    }
  }
  return { size: modules.size, runs };
}
