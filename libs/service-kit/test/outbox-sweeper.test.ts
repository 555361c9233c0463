/**
 * The outbox sweeper's rules on a clock of the test's own: which entries it
 * may take, when, and what it does with them; and the write window that keeps
 * every write from landing after the sweeper may have taken its entry.
 */
import fc from 'fast-check';
import { outboxTimings } from '../src/storage/outbox';
import { proofHolds, sweepCutoff } from '../src/storage/outbox-relay';
import { timeLeftToWrite, WRITE_TOO_LATE_MESSAGE } from '../src/storage/prepared-events';
import { ServiceError } from '../src/domain/errors';
import { entityProof, type WriteProof } from '../src/storage/outbox-entries';

/** An instant far from today. */
const T0 = Date.UTC(2093, 8, 10, 11, 12, 13);

/** Whether the sweeper, looking at `now`, takes an entry stored at `storedAt` (its query: created_at < cutoff). */
const sweptAt = (storedAt: number, now: number, graceMs: number) => storedAt < sweepCutoff(now, graceMs).getTime();

/** The server-side end of a write sent at `sentAt` in the window that ends at `sendBy`; null when it is refused. */
function writeEnd(sendBy: number, sentAt: number): number | null {
  try {
    return sentAt + timeLeftToWrite(sendBy, sentAt);
  } catch (err) {
    if (err instanceof ServiceError) return null;
    throw err;
  }
}

describe('the outbox timings', () => {
  it('default to a 10 s grace period, a write window of 40% of it and a sweep every 5 s', () => {
    expect(outboxTimings()).toEqual({ graceMs: 10_000, writeWindowMs: 4_000, sweepIntervalMs: 5_000 });
    expect(outboxTimings({ graceMs: 2_500 })).toEqual({ graceMs: 2_500, writeWindowMs: 1_000, sweepIntervalMs: 5_000 });
    expect(outboxTimings({ graceMs: 1_000, writeWindowMs: 300, sweepIntervalMs: 50 })).toEqual({
      graceMs: 1_000,
      writeWindowMs: 300,
      sweepIntervalMs: 50,
    });
  });
});

describe('the sweeper', () => {
  it('takes an entry once it is older than the grace period, never before', () => {
    const { graceMs } = outboxTimings();
    expect(sweptAt(T0, T0, graceMs)).toBe(false);
    expect(sweptAt(T0, T0 + graceMs, graceMs)).toBe(false);
    expect(sweptAt(T0, T0 + graceMs + 1, graceMs)).toBe(true);
  });

  it("publishes an entry whose proof holds and drops the others: a record's event id, or the record gone", () => {
    const changed = entityProof('bills', 'b-1', 'e-1');
    expect(changed).toEqual({ collection: 'bills', filter: { _id: 'b-1', _event_ids: 'e-1' }, exists: true });
    expect(proofHolds(changed, true)).toBe(true);
    expect(proofHolds(changed, false)).toBe(false);
    const deleted: WriteProof = { collection: 'bills', filter: { _id: 'b-1' }, exists: false };
    expect(proofHolds(deleted, false)).toBe(true);
    expect(proofHolds(deleted, true)).toBe(false);
  });
});

describe('the write window', () => {
  it('gives the server what is left of it as its time limit, and refuses a write with under 50 ms left', () => {
    const sendBy = T0 + 4_000;
    expect(timeLeftToWrite(sendBy, T0)).toBe(4_000);
    expect(timeLeftToWrite(sendBy, sendBy - 50)).toBe(50);
    for (const late of [sendBy - 49, sendBy, sendBy + 1_000]) {
      let refusal: unknown;
      try {
        timeLeftToWrite(sendBy, late);
      } catch (err) {
        refusal = err;
      }
      expect(refusal).toBeInstanceOf(ServiceError);
      expect(refusal).toMatchObject({ status: 503, message: WRITE_TOO_LATE_MESSAGE, code: 'SERVICE_BUSY' });
    }
  });

  it('ends every write before the sweeper may take its entry, whatever the grace period and the times', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 120_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        (graceMs, sentAfter, sweptAfter) => {
          const { writeWindowMs } = outboxTimings({ graceMs });
          const storedAt = T0;
          const end = writeEnd(storedAt + writeWindowMs, storedAt + sentAfter);
          if (end !== null && sweptAt(storedAt, storedAt + sweptAfter, graceMs))
            expect(end).toBeLessThan(storedAt + sweptAfter);
        },
      ),
    );
  });
});
