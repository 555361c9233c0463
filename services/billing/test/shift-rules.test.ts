import type { ServiceError } from '@clinic/service-kit';
import {
  assertMayUse,
  assertTakesMoney,
  availableCash,
  checkDenominations,
  outcomeOf,
  settledHolds,
  shiftFigures,
  type CashHold,
} from '../src/domain/shift';
import { parseCount, parseHandover, parseMovement, parseOpenShift } from '../src/domain/shift-input';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    const e = err as ServiceError;
    return { status: e.status, code: e.code, message: e.message, field: e.field };
  }
  throw new Error('not refused');
};

const hold = (id: string, amount_cents: number, at: number): CashHold => ({
  id,
  amount_cents,
  at: new Date(at),
  owner: { collection: 'bills', key: '1', paths: ['ledger.id'] },
});

describe('a shift: its drawer from float to count', () => {
  it('says what the drawer took, gave out and should hold', () => {
    const figures = shiftFigures(5_000, [
      { kind: 'payment', method: 'Cash', amount_cents: 10_000 },
      { kind: 'payment', method: 'Card', amount_cents: 2_000 },
      { kind: 'refund', method: 'Cash', amount_cents: 1_000 },
      { kind: 'reversal', method: 'Card', amount_cents: 500 },
      { kind: 'payout', method: 'Cash', amount_cents: 3_000 },
      { kind: 'payout_reversal', method: 'Cash', amount_cents: 1_000 },
      { kind: 'drop', method: 'Cash', amount_cents: 4_000 },
      { kind: 'petty_payout', method: 'Cash', amount_cents: 250 },
    ]);
    expect(figures).toEqual({
      taken: { Cash: 10_000, Card: 2_000, Online: 0 },
      given_back: { Cash: 1_000, Card: 500, Online: 0 },
      paid_to_doctors: 2_000,
      dropped: 4_000,
      paid_out: 250,
      expected: 5_000 + 10_000 - 1_000 - 2_000 - 4_000 - 250,
    });
  });

  it('counts the holds of writes in flight against the cash a refund may take', () => {
    const stored = [{ kind: 'payment', method: 'Cash', amount_cents: 1_000 }] as const;
    expect(availableCash(500, stored, [hold('a', 300, 0), hold('b', 200, 0)])).toBe(1_000);
  });

  it('lets a hold go once its entry is stored, or once its write can no longer land', () => {
    const holds = [hold('stored', 1, 0), hold('young', 1, 90_000), hold('stale', 1, 0), hold('landed', 1, 0)];
    const settled = settledHolds(holds, new Set(['stored']), new Set(['landed']), 100_000, 30_000);
    expect([...settled].sort()).toEqual(['stale', 'stored']);
  });

  it('reads over, short or balanced from the difference', () => {
    expect([outcomeOf(5), outcomeOf(-5), outcomeOf(0), outcomeOf(null)]).toEqual([
      'over',
      'short',
      'balanced',
      'not counted',
    ]);
  });

  it('takes money while open only, from its cashier or an admin', () => {
    expect(() => assertTakesMoney({ id: 3, status: 'open' })).not.toThrow();
    expect(refusal(() => assertTakesMoney({ id: 3, status: 'handing_over' }))).toEqual({
      status: 409,
      code: 'SHIFT_NOT_OPEN',
      message: 'Shift 3 is handing over: it takes no money.',
      field: undefined,
    });
    expect(() => assertMayUse({ id: 3, user_id: 8 }, 8, 'cashier')).not.toThrow();
    expect(() => assertMayUse({ id: 3, user_id: 8 }, 1, 'admin')).not.toThrow();
    expect(refusal(() => assertMayUse({ id: 3, user_id: 8 }, 7, 'cashier')).code).toBe('SHIFT_NOT_YOURS');
  });

  it('takes a float or a count by denomination only when they add up', () => {
    expect(() => checkDenominations('float_denominations', 5_000, [{ value_cents: 1_000, count: 5 }])).not.toThrow();
    expect(refusal(() => checkDenominations('denominations', 5_000, [{ value_cents: 1_000, count: 4 }]))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'denominations must add up to the amount, 40 by the denominations given.',
      field: 'denominations',
    });
  });
});

describe("the shift routes' bodies", () => {
  it('reads an opening float by denomination, in cents', () => {
    expect(
      parseOpenShift({
        store_id: 1,
        float: 50.5,
        float_denominations: [
          { value: 50, count: 1 },
          { value: 0.5, count: 1 },
        ],
      }),
    ).toEqual({
      store_id: 1,
      float_cents: 5_050,
      float_denominations: [
        { value_cents: 5_000, count: 1 },
        { value_cents: 50, count: 1 },
      ],
      note: null,
    });
  });

  it('refuses in order: the body, required fields, their rules, then unknown fields', () => {
    expect(refusal(() => parseOpenShift(null)).message).toBe('Request body must be a JSON object.');
    expect(refusal(() => parseOpenShift({ float: 1 })).message).toBe('store_id is required.');
    expect(refusal(() => parseOpenShift({ store_id: 1, float: -1 })).field).toBe('float');
    expect(refusal(() => parseOpenShift({ store_id: 1, float: 1, floot: 2 })).message).toBe('Unknown field: floot.');
    expect(refusal(() => parseMovement({ amount: 0 }, false)).field).toBe('amount');
    expect(refusal(() => parseMovement({ amount: 5 }, true)).message).toBe('reason is required.');
    expect(parseMovement({ amount: 5, reason: ' Stamps ' }, true)).toEqual({ amount_cents: 500, reason: 'Stamps' });
    expect(parseCount({ counted: 0 })).toEqual({ counted_cents: 0, denominations: null, note: null });
    expect(refusal(() => parseHandover({ counted: 1 })).message).toBe('to_user_id is required.');
  });
});
