import { entryOf, storedEntry, type OutboxEntry } from '../src/storage/outbox-entries';

const entry = (): OutboxEntry => ({
  _id: 'e-1',
  subject: 'billing.bill.updated',
  event: {
    event_id: 'e-1',
    type: 'billing.bill.updated',
    occurred_at: '2090-03-04T05:06:07.000Z',
    correlation_id: null,
    data: { bill: { id: 7, total: 1234.5, items: [{ qty: 2, unit_price: 0.1 }], notes: null } },
  },
  proof: { collection: 'bills', filter: { _id: 'b-7', _event_ids: 'e-1' }, exists: true },
  created_at: new Date('2090-03-04T05:06:07.123Z'),
  records: [
    { collection: 'bill_history', doc: { bill_id: 7, at: new Date('2090-03-04T05:06:07.123Z'), amount: -0.5 } },
  ],
});

describe('outbox entries as stored', () => {
  it('keeps the entry as one text beside its creation time', () => {
    const stored = storedEntry(entry());
    expect(Object.keys(stored)).toEqual(['_id', 'created_at', 'entry']);
    expect(stored.created_at).toEqual(new Date('2090-03-04T05:06:07.123Z'));
    expect(typeof stored.entry).toBe('string');
  });

  it('gives back the entry it stored: dates as dates, numbers as numbers', () => {
    const back = entryOf(storedEntry(entry()));
    expect(back).toEqual(entry());
    expect(back.created_at).toBeInstanceOf(Date);
    expect(back.records![0]!.doc.at).toBeInstanceOf(Date);
  });

  it('stores an undefined field as null, as the driver does', () => {
    const withUndefined = entry();
    withUndefined.records![0]!.doc.reason = undefined;
    expect(entryOf(storedEntry(withUndefined)).records![0]!.doc).toHaveProperty('reason', null);
  });

  it('reads an entry stored whole (by an earlier version) as it is', () => {
    expect(entryOf(entry())).toEqual(entry());
  });
});
