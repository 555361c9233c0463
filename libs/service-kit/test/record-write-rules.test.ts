/**
 * RecordWriter's compare-and-set rules, without a database: the filter that
 * lets a change's write land on the version it read and no other, the event
 * ids that make every write change that version, and how long a change
 * starts again when other replicas keep writing first (on the test's clock).
 */
import { REQUEST_MESSAGES } from '@clinic/contracts';
import { fail, ServiceError } from '../src/domain/errors';
import { EVENT_IDS_KEPT, withEventId } from '../src/storage/outbox-entries';
import { asFoundFilter, ChangedMeanwhile, startsAgain, type StoredRecord } from '../src/storage/record-write';

/** An instant far from today. */
const T0 = Date.UTC(2094, 1, 3, 4, 5, 6);

interface Charge extends StoredRecord {
  is_deleted: boolean;
}

const charge = (eventIds?: string[]): Charge =>
  ({ _id: 'c-7', id: 7, is_deleted: false, ...(eventIds ? { _event_ids: eventIds } : {}) }) as Charge;

describe("a change's write", () => {
  it('matches the record only with the event ids it was read with', () => {
    expect(asFoundFilter(charge(['e-1', 'e-2']))).toEqual({ _id: 'c-7', _event_ids: ['e-1', 'e-2'] });
  });

  it('matches a record stored without event ids only while it still has none', () => {
    expect(asFoundFilter(charge())).toEqual({ _id: 'c-7', _event_ids: { $exists: false } });
  });

  it('adds what the record must still match, which cannot widen the version it names', () => {
    const stillWritable = { is_deleted: false, _id: 'other', _event_ids: { $exists: true } };
    expect(asFoundFilter(charge(['e-1']), stillWritable as never)).toEqual({
      is_deleted: false,
      _id: 'c-7',
      _event_ids: ['e-1'],
    });
  });

  it("sets the record's event ids to those read plus its own, the latest few only", () => {
    expect(withEventId(undefined, 'e-1')).toEqual(['e-1']);
    expect(withEventId(['e-1', 'e-2'], 'e-3')).toEqual(['e-1', 'e-2', 'e-3']);
    const full = Array.from({ length: EVENT_IDS_KEPT }, (_, i) => `e-${i}`);
    const next = withEventId(full, 'e-new');
    expect(next).toHaveLength(EVENT_IDS_KEPT);
    expect(next).toEqual([...full.slice(1), 'e-new']);
    // Two writes over one version leave different lists: the second one's filter cannot match the first's result.
    expect(withEventId(full, 'e-a')).not.toEqual(withEventId(full, 'e-b'));
  });
});

describe('a change overtaken by another replica', () => {
  it('is a 409 RECORD_BUSY with the spec-wide retry text', () => {
    const busy = new ChangedMeanwhile();
    expect(busy).toBeInstanceOf(ServiceError);
    expect(busy).toMatchObject({ status: 409, code: 'RECORD_BUSY', message: REQUEST_MESSAGES.recordBusy });
  });

  it('starts again from the read until it gives up, then answers its 409', () => {
    const giveUpAt = T0 + 3_000;
    expect(startsAgain(new ChangedMeanwhile(), giveUpAt, T0)).toBe(true);
    expect(startsAgain(new ChangedMeanwhile(), giveUpAt, giveUpAt - 1)).toBe(true);
    expect(startsAgain(new ChangedMeanwhile(), giveUpAt, giveUpAt)).toBe(false);
    expect(startsAgain(new ChangedMeanwhile(), giveUpAt, giveUpAt + 60_000)).toBe(false);
  });

  it("never starts again on another failure, a caller's own 409 included", () => {
    const giveUpAt = T0 + 3_000;
    for (const other of [fail('RECORD_BUSY'), fail('CHARGE_NOT_FOUND'), new Error('socket closed')])
      expect(startsAgain(other, giveUpAt, T0)).toBe(false);
  });
});
