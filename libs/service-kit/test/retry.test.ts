import { pauses, retryPolicy, type Pause } from '../src/process/retry';

/** The first `count` pauses a plan waits, in ms. */
function sequence(pause: Pause, count: number): number[] {
  const durations: number[] = [];
  let backoff = pause.next({ attempt: 1, result: { error: new Error('x') }, signal: new AbortController().signal });
  for (let attempt = 1; attempt <= count; attempt++) {
    durations.push(backoff.duration);
    backoff = backoff.next({
      attempt: attempt + 1,
      result: { error: new Error('x') },
      signal: new AbortController().signal,
    });
  }
  return durations;
}

describe('pauses', () => {
  it('are the ones the loops waited before: linear, doubling, constant', () => {
    // connectMongo: min(200 * attempt, 2000)
    expect(sequence(pauses.linear(200, 2_000), 12)).toEqual([
      200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000, 2000, 2000,
    ]);
    // record locks: min(5 * 2^n, 100); the outbox: 100 doubling to 2 s
    expect(sequence(pauses.doubling(5, 100), 7)).toEqual([5, 10, 20, 40, 80, 100, 100]);
    expect(sequence(pauses.doubling(100, 2_000), 7)).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    expect(sequence(pauses.constant(500), 3)).toEqual([500, 500, 500]);
  });

  it('draws the jittered ones at random, never above their most: record changes racing other replicas', () => {
    // RecordWriter's: from 2 ms, at most 50.
    for (let run = 0; run < 100; run++) {
      for (const duration of sequence(pauses.doublingJittered(2, 50), 12)) {
        expect(duration).toBeGreaterThanOrEqual(0);
        expect(duration).toBeLessThanOrEqual(50);
      }
    }
    const drawn = (random: number) => {
      const spy = jest.spyOn(Math, 'random').mockReturnValue(random);
      try {
        return sequence(pauses.doublingJittered(2, 50), 4);
      } finally {
        spy.mockRestore();
      }
    };
    expect(drawn(0)).not.toEqual(drawn(0.99));
  });
});

describe('retryPolicy', () => {
  it('tries `retries` more times on what it retries on, then throws the last failure', async () => {
    const failures: number[] = [];
    let calls = 0;
    const policy = retryPolicy({
      retryOn: (err) => (err as Error).message === 'again',
      retries: 5,
      onRetry: (_err, attempt) => failures.push(attempt),
    });
    await expect(
      policy.execute(async () => {
        calls++;
        throw new Error('again');
      }),
    ).rejects.toThrow('again');
    expect(calls).toBe(6);
    expect(failures).toEqual([1, 2, 3, 4, 5]);
  });

  it('stops at once on a failure it does not retry on, and returns the first success', async () => {
    let calls = 0;
    const policy = retryPolicy({ retryOn: (err) => (err as Error).message === 'again', retries: Infinity });
    await expect(
      policy.execute(async () => {
        calls++;
        throw new Error(calls < 3 ? 'again' : 'other');
      }),
    ).rejects.toThrow('other');
    expect(calls).toBe(3);
    expect(await policy.execute(async ({ attempt }) => attempt)).toBe(0);
  });

  it('asks retryOn when the failure happens, so a loop ends when it is told to stop', async () => {
    let stopped = false;
    let calls = 0;
    const policy = retryPolicy({ retryOn: () => !stopped, retries: Infinity, pause: pauses.constant(1) });
    await expect(
      policy.execute(async () => {
        if (++calls === 4) stopped = true;
        throw new Error('down');
      }),
    ).rejects.toThrow('down');
    expect(calls).toBe(4);
  });
});
