/** The catalogue's pure rules: a charge's body and list query as the spec checks them, in its order. */
import { CATALOGUE_MESSAGES, FIELD_MESSAGES, Limits } from '@clinic/contracts';
import { ServiceError } from '@clinic/service-kit';
import {
  nameKey,
  parseChargeCheck,
  parseChargeUpdate,
  parseListQuery,
  parseNewCharge,
  sameFields,
  type ChargeFields,
} from '../src/domain/rules';

/** What a parse refused with, or 'accepted'. */
function refusal(parse: () => unknown) {
  try {
    parse();
  } catch (err) {
    if (err instanceof ServiceError)
      return { status: err.status, code: err.code, error: err.message, field: err.field };
    throw err;
  }
  return 'accepted';
}

const invalid = (field: string | undefined, error: string) => ({
  status: 400,
  code: 'VALIDATION_FAILED',
  error,
  field,
});

const newCharge = (overrides: Record<string, unknown> = {}) => ({
  charge_name: 'CBC',
  charge_type: 'Lab',
  amount: 1500,
  store_id: 1,
  ...overrides,
});

describe('a new charge', () => {
  it('is trimmed, priced in cents half-up, Active by default, and blank notes are none', () => {
    expect(parseNewCharge(newCharge({ charge_name: '  Full blood count ', amount: 12.345, notes: '   ' }))).toEqual({
      charge_name: 'Full blood count',
      charge_type: 'Lab',
      amount_cents: 1235,
      status: 'Active',
      notes: null,
      store_id: 1,
    });
    expect(parseNewCharge(newCharge({ status: 'Inactive', notes: ' fasting ', amount: 0 }))).toMatchObject({
      status: 'Inactive',
      notes: 'fasting',
      amount_cents: 0,
    });
  });

  it('needs a JSON object', () => {
    for (const body of [undefined, null, 'CBC', [newCharge()], 7])
      expect(refusal(() => parseNewCharge(body))).toEqual(invalid(undefined, CATALOGUE_MESSAGES.body));
  });

  it('needs charge_name, charge_type, amount and store_id, asked in that order; blank is missing', () => {
    expect(refusal(() => parseNewCharge({}))).toEqual(invalid('charge_name', FIELD_MESSAGES.required('charge_name')));
    expect(refusal(() => parseNewCharge(newCharge({ charge_name: '  ', charge_type: null })))).toEqual(
      invalid('charge_name', FIELD_MESSAGES.required('charge_name')),
    );
    expect(refusal(() => parseNewCharge(newCharge({ charge_type: undefined, amount: null })))).toEqual(
      invalid('charge_type', FIELD_MESSAGES.required('charge_type')),
    );
    expect(refusal(() => parseNewCharge(newCharge({ amount: '', store_id: undefined })))).toEqual(
      invalid('amount', FIELD_MESSAGES.required('amount')),
    );
    expect(refusal(() => parseNewCharge(newCharge({ store_id: null })))).toEqual(
      invalid('store_id', FIELD_MESSAGES.required('store_id')),
    );
  });

  it('checks, once all are given, store_id, amount, charge_type, status, then notes', () => {
    const allWrong = { store_id: 0, amount: -1, charge_type: 'X', status: 'Gone', notes: 5 };
    const order: Array<[string, string]> = [
      ['store_id', FIELD_MESSAGES.notPositiveId('store_id')],
      ['amount', 'amount must be a number greater than or equal to 0.'],
      ['charge_type', 'charge_type must be General or Lab.'],
      ['status', 'status must be Active or Inactive.'],
      ['notes', FIELD_MESSAGES.notText('notes')],
    ];
    const valid: Record<string, unknown> = {
      store_id: 1,
      amount: 1500,
      charge_type: 'Lab',
      status: 'Active',
      notes: null,
    };
    const body: Record<string, unknown> = newCharge(allWrong);
    for (const [field, error] of order) {
      expect(refusal(() => parseNewCharge(body))).toEqual(invalid(field, error));
      body[field] = valid[field];
    }
    expect(refusal(() => parseNewCharge(body))).toBe('accepted');
  });

  it('refuses a charge_name that is not text, an amount that is not a number or over the most', () => {
    expect(refusal(() => parseNewCharge(newCharge({ charge_name: 42 })))).toEqual(
      invalid('charge_name', FIELD_MESSAGES.notText('charge_name')),
    );
    for (const amount of ['1500', true, [1]])
      expect(refusal(() => parseNewCharge(newCharge({ amount })))).toEqual(
        invalid('amount', 'amount must be a number greater than or equal to 0.'),
      );
    expect(refusal(() => parseNewCharge(newCharge({ amount: Limits.moneyMax })))).toBe('accepted');
    expect(refusal(() => parseNewCharge(newCharge({ amount: Limits.moneyMax + 1 })))).toEqual(
      invalid('amount', `amount must be at most ${Limits.moneyMax}.`),
    );
  });

  it('checks the sizes last, and ignores fields it does not take', () => {
    const long = 'x'.repeat(Limits.nameMaxLength + 1);
    expect(refusal(() => parseNewCharge(newCharge({ charge_name: long, charge_type: 'X' })))).toEqual(
      invalid('charge_type', 'charge_type must be General or Lab.'),
    );
    expect(refusal(() => parseNewCharge(newCharge({ charge_name: long })))).toEqual(
      invalid('charge_name', FIELD_MESSAGES.tooLong('charge_name', Limits.nameMaxLength)),
    );
    const parsed = parseNewCharge(newCharge({ id: 99, created_by: 5, discount: 3 }));
    expect(Object.keys(parsed).sort()).toEqual([
      'amount_cents',
      'charge_name',
      'charge_type',
      'notes',
      'status',
      'store_id',
    ]);
  });
});

describe('a charge update', () => {
  it('takes the same fields as a create, without store_id, which it ignores', () => {
    expect(parseChargeUpdate({ charge_name: ' CBC ', charge_type: 'General', amount: 10, store_id: 'x' })).toEqual({
      charge_name: 'CBC',
      charge_type: 'General',
      amount_cents: 1000,
      status: 'Active',
      notes: null,
    });
  });

  it('needs charge_name, charge_type and amount, then checks them as a create does', () => {
    expect(refusal(() => parseChargeUpdate(null))).toEqual(invalid(undefined, CATALOGUE_MESSAGES.body));
    expect(refusal(() => parseChargeUpdate({ charge_name: 'CBC', charge_type: 'Lab' }))).toEqual(
      invalid('amount', FIELD_MESSAGES.required('amount')),
    );
    expect(refusal(() => parseChargeUpdate({ charge_name: 'CBC', charge_type: 'Lab', amount: -0.01 }))).toEqual(
      invalid('amount', 'amount must be a number greater than or equal to 0.'),
    );
  });
});

describe('charges compared', () => {
  const fields: ChargeFields = {
    charge_name: 'CBC',
    charge_type: 'Lab',
    amount_cents: 100,
    status: 'Active',
    notes: null,
  };

  it('are the same only when every field a change can set is equal', () => {
    expect(sameFields(fields, { ...fields })).toBe(true);
    for (const change of [
      { charge_name: 'cbc' },
      { charge_type: 'General' as const },
      { amount_cents: 101 },
      { status: 'Inactive' as const },
      { notes: '' },
    ])
      expect(sameFields(fields, { ...fields, ...change })).toBe(false);
  });

  it('have one name whatever its case and spacing', () => {
    expect(nameKey('  Full   Blood\tCount ')).toBe('full blood count');
    expect(nameKey('CBC')).toBe(nameKey('cbc'));
    expect(nameKey('C B C')).not.toBe(nameKey('CBC'));
  });
});

describe('the charge list query', () => {
  it('needs a positive store_id', () => {
    expect(refusal(() => parseListQuery({}))).toEqual(invalid('store_id', FIELD_MESSAGES.required('store_id')));
    expect(refusal(() => parseListQuery({ store_id: '0' }))).toEqual(
      invalid('store_id', FIELD_MESSAGES.notPositiveId('store_id')),
    );
    expect(refusal(() => parseListQuery({ store_id: ['1', '2'] }))).toEqual(
      invalid('store_id', FIELD_MESSAGES.givenTwice('store_id')),
    );
  });

  it('keeps the filters given, a trimmed search, and a page only when one is asked for', () => {
    expect(parseListQuery({ store_id: '3' })).toEqual({ store_id: 3 });
    expect(parseListQuery({ store_id: '3', status: '', charge_type: '', search: '   ' })).toEqual({ store_id: 3 });
    expect(parseListQuery({ store_id: '3', status: 'Active', charge_type: 'Lab', search: ' cb ', page: '2' })).toEqual({
      store_id: 3,
      status: 'Active',
      charge_type: 'Lab',
      search: 'cb',
      page: { page: 2, per_page: Limits.perPageDefault },
    });
  });

  it('refuses a filter longer than a search may be', () => {
    const long = 'x'.repeat(Limits.searchMaxLength + 1);
    expect(refusal(() => parseListQuery({ store_id: '3', search: long }))).toEqual(
      invalid('search', FIELD_MESSAGES.tooLong('search', Limits.searchMaxLength)),
    );
  });
});

describe("billing's check of a bill's charges", () => {
  it('takes a branch and 1 to the most items of charge ids', () => {
    expect(parseChargeCheck({ store_id: 2, charge_ids: [5, 6] })).toEqual({ store_id: 2, charge_ids: [5, 6] });
    const listRule = `charge_ids must be a list of 1 to ${Limits.billItemsMax} positive integers.`;
    for (const charge_ids of [[], [0], ['5'], Array.from({ length: Limits.billItemsMax + 1 }, (_, i) => i + 1)])
      expect(refusal(() => parseChargeCheck({ store_id: 2, charge_ids }))).toEqual(invalid('charge_ids', listRule));
    expect(refusal(() => parseChargeCheck({ charge_ids: [1] }))).toEqual(
      invalid('store_id', FIELD_MESSAGES.notPositiveId('store_id')),
    );
  });
});
