/** BatchedFinds' one rule of time, on the test's clock (the batching itself: tests/integration/batched-finds.test.ts). */
import { FindQueuedTooLong, queuedTooLong } from '../src/storage/batched-finds';

/** An instant far from today. */
const T0 = Date.UTC(2092, 6, 1, 2, 3, 4);

describe('a find queued behind a query in flight', () => {
  it('is sent when it waited up to a second', () => {
    for (const waited of [0, 1, 999, 1_000]) expect(queuedTooLong(T0, T0 + waited)).toBeNull();
  });

  it('is refused unsent, saying how long it waited, once it waited longer', () => {
    const refusal = queuedTooLong(T0, T0 + 1_001);
    expect(refusal).toBeInstanceOf(FindQueuedTooLong);
    expect(refusal?.message).toBe('find not sent: it waited 1001 ms for the query before it');
    expect(queuedTooLong(T0, T0 + 30_000)).toBeInstanceOf(FindQueuedTooLong);
  });
});
