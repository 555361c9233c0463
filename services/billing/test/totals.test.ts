import fc from 'fast-check';
import { formatBillNumber } from '@clinic/contracts';
import { computeTotals, type ItemInput } from '../src/domain/rules';
import { toCents } from '@clinic/service-kit';

const item = (unitPrice: number, qty: number): ItemInput => ({
  charge_id: 1,
  charge_name: 'x',
  unit_price_cents: toCents(unitPrice),
  qty,
});
const amount = (cents: number) => cents / 100;

describe('money rounding (half-up on the decimal value)', () => {
  it.each([
    [1.005, 1.01],
    [1.004, 1.0],
    [2.675, 2.68], // 2.675 is 2.67499999... in binary floating point
    [1.015, 1.02],
    [0.125, 0.13],
    [10.235, 10.24],
    [1e-7, 0],
    [999999999.99, 999999999.99],
  ])('rounds %p to %p', (input, expected) => {
    expect(amount(toCents(input))).toBe(expected);
  });

  it('adds exactly: 0.1 + 0.2 is 0.3', () => {
    const totals = computeTotals([item(0.1, 1), item(0.2, 1)], 'flat', 0);
    expect(amount(totals.subtotal)).toBe(0.3);
    expect(amount(totals.grand_total)).toBe(0.3);
  });

  it.each([
    // items, discount type, value, subtotal, discount, grand total
    [[[1.005, 1]], 'flat', 0, 1.01, 0, 1.01],
    [[[19.99, 3]], 'pct', 10, 59.97, 6.0, 53.97],
    [[[33.33, 1]], 'pct', 12.5, 33.33, 4.17, 29.16], // 4.16625 -> 4.17
    [[[10, 1]], 'flat', 25, 10, 10, 0], // a flat discount never exceeds the subtotal
    [[[10, 1]], 'pct', 150, 10, 10, 0],
    [[[0.01, 99]], 'pct', 50, 0.99, 0.5, 0.49], // 0.495 -> 0.50
    [
      [
        [850, 1],
        [2400, 2],
        [450.5, 1],
      ],
      'flat',
      100.005,
      6100.5,
      100.01,
      6000.49,
    ],
  ] as const)('computes %j %s %p', (items, type, value, subtotal, discount, grand) => {
    const totals = computeTotals(
      items.map(([p, q]) => item(p, q)),
      type,
      value,
    );
    expect([amount(totals.subtotal), amount(totals.discount), amount(totals.grand_total)]).toEqual([
      subtotal,
      discount,
      grand,
    ]);
  });
});

/** An independent reference: everything in BigInt thousandths, rounding written out by hand. */
function reference(prices: bigint[], qtys: number[], type: 'flat' | 'pct', valueThousandths: bigint) {
  const halfUpDiv = (n: bigint, d: bigint) => (n * 2n + d) / (d * 2n); // n, d >= 0
  const lines = prices.map((p, i) => halfUpDiv(p, 10n) * BigInt(qtys[i]!)); // one qty per price
  const subtotal = lines.reduce((a, b) => a + b, 0n);
  const raw = type === 'pct' ? halfUpDiv(subtotal * valueThousandths, 100_000n) : halfUpDiv(valueThousandths, 10n);
  const discount = raw < subtotal ? raw : subtotal;
  return { lines, subtotal, discount, grand: subtotal - discount };
}

it('matches exact decimal arithmetic for any prices, quantities and discounts', () => {
  const thousandths = fc.integer({ min: 0, max: 99_999_999_999 });
  fc.assert(
    fc.property(
      fc.array(fc.record({ price: thousandths, qty: fc.integer({ min: 1, max: 99 }) }), {
        minLength: 1,
        maxLength: 20,
      }),
      fc.constantFrom('flat' as const, 'pct' as const),
      fc.integer({ min: 0, max: 200_000 }),
      (lines, type, value) => {
        const items = lines.map((l) => item(l.price / 1000, l.qty));
        const totals = computeTotals(items, type, value / 1000);
        const expected = reference(
          lines.map((l) => BigInt(l.price)),
          lines.map((l) => l.qty),
          type,
          BigInt(value),
        );
        expect(totals.line_totals.map(BigInt)).toEqual(expected.lines);
        expect(BigInt(totals.subtotal)).toBe(expected.subtotal);
        expect(BigInt(totals.discount)).toBe(expected.discount);
        expect(BigInt(totals.grand_total)).toBe(expected.grand);
      },
    ),
    { numRuns: 2000 },
  );
});

it('formats bill numbers as LB-<YYYYMMDD>-<NNNN>', () => {
  expect(formatBillNumber('2082-11-21', 1)).toBe('LB-20821121-0001');
  expect(formatBillNumber('2082-01-05', 42)).toBe('LB-20820105-0042');
  expect(formatBillNumber('2082-01-05', 12345)).toBe('LB-20820105-12345');
});
