import fc from 'fast-check';
import {
  BILL_FIELDS,
  calendarDate,
  CHARGE_FIELDS,
  clockTime,
  FIELD_MESSAGES,
  LEDGER_FIELDS,
  SESSION_FIELDS,
} from '@clinic/contracts';
import { ServiceError } from '../src/domain/errors';
import { optionalText, requireObject, validAmount, validField } from '../src/domain/field-check';

/** The message a value gets, or 'valid'. */
function verdict(rule: Parameters<typeof validField>[0], value: unknown, field = 'f'): string {
  try {
    validField(rule, value, field);
    return 'valid';
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(400);
    return (err as Error).message;
  }
}

describe('validField', () => {
  it('answers each rule with its own message, the spec wording', () => {
    expect(verdict(BILL_FIELDS.qty, 0, 'items[0].qty')).toBe('items[0].qty must be an integer from 1 to 99.');
    expect(verdict(BILL_FIELDS.qty, 1.5)).toBe('f must be an integer from 1 to 99.');
    expect(verdict(BILL_FIELDS.qty, 99)).toBe('valid');
    expect(verdict(BILL_FIELDS.payment_method, 'Cheque', 'payment_method')).toBe(
      'payment_method must be one of Cash, Card, Online.',
    );
    expect(verdict(CHARGE_FIELDS.charge_type, 'X', 'charge_type')).toBe('charge_type must be General or Lab.');
    expect(verdict(SESSION_FIELDS.conflicts, 'yes', 'conflicts')).toBe('conflicts must be true or false.');
    expect(verdict(BILL_FIELDS.receipt_size, 'a4', 'size')).toBe('size must be one of 80mm, a5.');
    expect(verdict(SESSION_FIELDS.max_patients, 0, 'max_patients')).toBe('max_patients must be a positive integer.');
    expect(verdict(SESSION_FIELDS.month, '2099-13', 'month')).toBe('month must be in YYYY-MM format.');
    expect(verdict(BILL_FIELDS.search, 'a\u0001b', 'search')).toBe('search must not contain control characters.');
    expect(verdict(BILL_FIELDS.search, 'tab\there\nand there\r')).toBe('valid');
    expect(verdict(BILL_FIELDS.cancel_reason, 5, 'reason')).toBe('reason must be a string.');
    expect(verdict(BILL_FIELDS.cancel_reason, 'x'.repeat(501), 'reason')).toBe(
      'reason must be at most 500 characters.',
    );
    // Characters are code points, as JSON Schema's maxLength counts them.
    expect(verdict(BILL_FIELDS.cancel_reason, '\u{1F600}'.repeat(500))).toBe('valid');
    expect(verdict(BILL_FIELDS.items, [], 'items')).toBe('items must contain at least one item.');
    expect(verdict(BILL_FIELDS.items, Array(101).fill({}), 'items')).toBe('items must have at most 100 elements.');
    expect(verdict(CHARGE_FIELDS.charge_ids, [1, 0], 'charge_ids')).toBe(
      'charge_ids must be a list of 1 to 100 positive integers.',
    );
  });

  it('tells a negative amount from an amount too large, and a payment of 0 from one too large', () => {
    expect(verdict(BILL_FIELDS.unit_price, -1, 'unit_price')).toBe(
      'unit_price must be a number greater than or equal to 0.',
    );
    expect(verdict(BILL_FIELDS.unit_price, '5', 'unit_price')).toBe(
      'unit_price must be a number greater than or equal to 0.',
    );
    expect(verdict(BILL_FIELDS.unit_price, 1e9, 'unit_price')).toBe('unit_price must be at most 999999999.99 in size.');
    // Negative money anywhere is refused, the cash a patient handed over too.
    expect(verdict(BILL_FIELDS.cash_amount, -5, 'balance_amount')).toBe(
      'balance_amount must be greater than or equal to 0.',
    );
    expect(verdict(BILL_FIELDS.cash_amount, 1e9, 'balance_amount')).toBe(
      'balance_amount must be at most 999999999.99 in size.',
    );
    expect(verdict(LEDGER_FIELDS.amount, 0, 'amount')).toBe('amount must be a number greater than 0.');
    expect(verdict(LEDGER_FIELDS.amount, -0.01, 'amount')).toBe('amount must be a number greater than 0.');
    expect(verdict(LEDGER_FIELDS.amount, 0.01, 'amount')).toBe('valid');
    expect(verdict(LEDGER_FIELDS.amount, 1e9, 'amount')).toBe('amount must be at most 999999999.99 in size.');
    expect(verdict(BILL_FIELDS.cash_amount, null, 'balance_amount')).toBe('balance_amount must be a number.');
    expect(verdict(CHARGE_FIELDS.amount, -1, 'amount')).toBe('amount must be a number greater than or equal to 0.');
    expect(verdict(CHARGE_FIELDS.amount, 1e9, 'amount')).toBe('amount must be at most 999999999.99.');
  });

  it('takes a calendar date exactly when it is one, for every four-digit year', () => {
    // What the services checked by hand before: YYYY-MM-DD with a day the month has (proleptic Gregorian).
    const reference = (text: string) => {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
      if (!match) return false;
      const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
      const date = new Date(Date.UTC(2000, month - 1, day));
      date.setUTCFullYear(year);
      return month >= 1 && month <= 12 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
    };
    const digits = (n: number) => fc.integer({ min: 0, max: 10 ** n - 1 }).map((v) => String(v).padStart(n, '0'));
    fc.assert(
      fc.property(fc.tuple(digits(4), digits(2), digits(2)), ([y, m, d]) => {
        const text = `${y}-${m}-${d}`;
        expect(verdict(calendarDate, text) === 'valid').toBe(reference(text));
      }),
      { numRuns: 3000 },
    );
    expect(verdict(calendarDate, '2084-02-29')).toBe('valid');
    expect(verdict(calendarDate, '2100-02-29', 'date')).toBe(FIELD_MESSAGES.notDate('date'));
    for (const text of ['2099-1-01', '2099-01-01T00:00', '２０９９-01-01', ' 2099-01-01', 20990101])
      expect(verdict(calendarDate, text)).not.toBe('valid');
  });

  it('takes a clock time from 00:00 to 23:59', () => {
    for (const text of ['00:00', '09:05', '23:59']) expect(verdict(clockTime, text)).toBe('valid');
    for (const text of ['24:00', '9:00', '12:60', '12:00:00', ''])
      expect(verdict(clockTime, text, 'start_time')).toBe('start_time must be a time in HH:MM format.');
  });

  it('answers with the status it is given', () => {
    expect(() =>
      validField(
        SESSION_FIELDS.session_no,
        0,
        'session_no',
        (m, field) => new ServiceError(422, m, 'VALIDATION_FAILED', field),
      ),
    ).toThrow(expect.objectContaining({ status: 422, message: 'session_no must be an integer from 1 to 1000.' }));
  });
});

describe('requireObject', () => {
  it('gives a JSON object back and refuses anything else with 400, the message and the field', () => {
    const body = { a: 1 };
    expect(requireObject(body, 'Request body must be an object.')).toBe(body);
    for (const value of [null, undefined, [], 'x', 1]) {
      const refused = (() => {
        try {
          return requireObject(value, 'items[0] must be an object.', 'items[0]');
        } catch (err) {
          return err as ServiceError;
        }
      })();
      expect(refused).toMatchObject({ status: 400, message: 'items[0] must be an object.', field: 'items[0]' });
    }
  });
});

describe('validAmount', () => {
  it('gives an amount that keeps its rule in cents, rounded half-up, and refuses one that does not as validField', () => {
    expect(validAmount(CHARGE_FIELDS.amount, 1.005, 'amount')).toBe(101);
    expect(validAmount(LEDGER_FIELDS.amount, 12, 'amount')).toBe(1200);
    expect(() => validAmount(CHARGE_FIELDS.amount, 'x', 'amount')).toThrow(
      verdict(CHARGE_FIELDS.amount, 'x', 'amount'),
    );
  });
});

describe('optionalText', () => {
  const rule = LEDGER_FIELDS.reference;

  it('is none when absent, null or blank, and the text trimmed otherwise', () => {
    expect(optionalText({}, 'reference', rule)).toBeNull();
    expect(optionalText({ reference: null }, 'reference', rule)).toBeNull();
    expect(optionalText({ reference: '   ' }, 'reference', rule)).toBeNull();
    expect(optionalText({ reference: '  SLIP-42 ' }, 'reference', rule)).toBe('SLIP-42');
  });

  it("refuses a value that breaks the rule with the rule's message", () => {
    expect(() => optionalText({ reference: 42 }, 'reference', rule)).toThrow(rule.message('reference', 42));
  });
});
