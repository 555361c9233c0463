import { create } from 'qrcode';
import { QR_SIDE, qrLayout, qrPlacement } from '../src/views/paper/qr-code';

describe('qrLayout: a QR code as the dark runs of its rows', () => {
  it('covers exactly the symbol’s dark modules, each once', () => {
    const { modules } = create('120003', { errorCorrectionLevel: 'M' });
    const { size, runs } = qrLayout('120003');
    expect(size).toBe(modules.size);
    const drawn = new Set<string>();
    for (const run of runs)
      for (let x = run.x; x < run.x + run.width; x++) {
        const key = `${run.y}:${x}`;
        expect(drawn.has(key)).toBe(false);
        drawn.add(key);
      }
    for (let y = 0; y < size; y++)
      for (let x = 0; x < size; x++) expect(drawn.has(`${y}:${x}`)).toBe(modules.get(y, x) === 1);
  });

  it('starts with the finder pattern’s top edge: seven dark modules at the top left', () => {
    const { runs } = qrLayout('1');
    expect(runs[0]).toEqual({ x: 0, y: 0, width: 7 });
  });
});

describe('qrPlacement: the symbol centred on the slip, with its quiet zone', () => {
  it('puts four light modules either side within the side, centred in the width', () => {
    const width = 200;
    const { left, module } = qrPlacement(21, width, 58);
    expect(module).toBeCloseTo(58 / 29);
    expect(left).toBeCloseTo((width - 58) / 2 + 4 * module);
    expect(left + 21 * module + 4 * module).toBeCloseTo((width + 58) / 2);
    expect(QR_SIDE).toBeGreaterThan(80);
  });
});
