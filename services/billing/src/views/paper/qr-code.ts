/**
 * A QR code as the dark runs of its rows, in modules, for a page to draw as
 * rectangles (pdfkit has no QR code of its own): the `qrcode` package makes
 * the symbol, this lays it out. A run rather than a square per module: a
 * fifth of the rectangles, and no hairline seams between neighbours. Pure.
 */
import { create } from 'qrcode';

/** Points per millimetre (page-writer's MM, not imported: this module stays free of pdfkit). */
const MM = 72 / 25.4;

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

/** The QR code's side on paper, its quiet zone included: a phone or a counter scanner reads it at arm's length. */
export const QR_SIDE = 30 * MM;
/** Modules of light margin around the symbol that the standard asks for. */
export const QUIET_MODULES = 4;

/** Where the symbol's runs go: `side` points square with its quiet zone, centred in `width`; a module's side. */
export function qrPlacement(size: number, width: number, side = QR_SIDE): { left: number; module: number } {
  const module = side / (size + 2 * QUIET_MODULES);
  return { left: (width - side) / 2 + QUIET_MODULES * module, module };
}
