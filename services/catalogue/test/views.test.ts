/** How the API and the events show a stored charge. */
import { ClinicClock } from '@clinic/service-kit';
import type { ChargeDoc } from '../src/domain/charge';
import { chargeView } from '../src/views/charge-view';

const clock = new ClinicClock('Asia/Colombo');

const stored: ChargeDoc = {
  _id: 'charge:7',
  id: 7,
  store_id: 2,
  charge_name: 'CBC',
  name_key: 'cbc',
  charge_type: 'Lab',
  amount_cents: 123_456,
  status: 'Active',
  notes: null,
  live_key: 0,
  is_deleted: false,
  created_by: 11,
  updated_by: null,
  created_at: new Date('2090-01-31T18:45:30.900Z'),
  updated_at: null,
  _event_ids: ['e-1'],
};

describe('a charge as the API shows it', () => {
  it('has the spec fields only: the amount in currency units, times in the clinic zone', () => {
    expect(chargeView(stored, clock)).toEqual({
      id: 7,
      charge_name: 'CBC',
      charge_type: 'Lab',
      amount: 1234.56,
      status: 'Active',
      notes: null,
      store_id: 2,
      created_by: 11,
      updated_by: null,
      // 18:45:30 UTC is past midnight in Colombo (+05:30): the next day.
      created_at: '2090-02-01 00:15:30',
      updated_at: null,
    });
  });

  it('shows who changed it and when, an identity as the token gave it', () => {
    const changed = {
      ...stored,
      updated_by: 'nurse-3',
      updated_at: new Date('2090-02-01T00:00:00.000Z'),
      amount_cents: 5,
    };
    expect(chargeView(changed, clock)).toMatchObject({
      updated_by: 'nurse-3',
      updated_at: '2090-02-01 05:30:00',
      amount: 0.05,
    });
  });
});
