import { ServiceError } from '@clinic/service-kit';
import { parseDayClose, parsePayment, parseRefund } from '../src/domain/money-input';

const refusal = (parse: () => unknown) => {
  try {
    parse();
  } catch (err) {
    if (err instanceof ServiceError) return { status: err.status, message: err.message };
    throw err;
  }
  return 'accepted';
};

describe('amounts of payments and refunds', () => {
  it('are rounded half-up to the cent, and refused when that leaves none', () => {
    expect(parsePayment({ amount: 0.005, method: 'Cash' }).amount_cents).toBe(1);
    expect(parsePayment({ amount: 12.345, method: 'Card' }).amount_cents).toBe(1235);
    const belowOneCent = { status: 400, message: 'amount must be at least 0.01.' };
    expect(refusal(() => parsePayment({ amount: 0.004, method: 'Cash' }))).toEqual(belowOneCent);
    expect(refusal(() => parseRefund({ amount: 0.0049, method: 'Cash', reason: 'r' }))).toEqual(belowOneCent);
    expect(refusal(() => parsePayment({ amount: 0, method: 'Cash' }))).toEqual({
      status: 400,
      message: 'amount must be a number greater than 0.',
    });
  });
});

describe('counted cash of a closing', () => {
  it('names a user the same whether as 7 or "7": listed both ways is listed twice', () => {
    expect([
      ...parseDayClose({ store_id: 1, date: '2090-01-01', counted_cash: [{ user_id: '7', amount: 5 }] }).counted,
    ]).toEqual([[7, 500]]);
    const twice = {
      store_id: 1,
      date: '2090-01-01',
      counted_cash: [
        { user_id: 7, amount: 1 },
        { user_id: '7', amount: 2 },
      ],
    };
    expect(refusal(() => parseDayClose(twice))).toEqual({
      status: 400,
      message: 'counted_cash lists user 7 more than once.',
    });
  });
});
