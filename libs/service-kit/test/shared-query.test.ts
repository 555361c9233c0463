import fc from 'fast-check';
import { SharedQuery } from '../src/cache/shared-query';

describe('SharedQuery', () => {
  it('answers every caller with a query sent after it asked, sharing queries among callers of the moment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(fc.nat(5), { minLength: 1, maxLength: 30 }), async (s, gaps) => {
        let clock = 0;
        let sent = 0;
        // Each query answers the time it was sent at, once the scheduler lets it.
        const query = new SharedQuery(() => {
          sent++;
          return s.schedule(Promise.resolve(clock), 'query');
        });
        const answers: Array<Promise<{ askedAt: number; sentAt: number }>> = [];
        for (const gap of gaps) {
          clock++;
          const askedAt = clock;
          answers.push(query.ask().then((sentAt) => ({ askedAt, sentAt })));
          for (let i = 0; i < gap && s.count() > 0; i++) await s.waitOne();
        }
        let all: Array<{ askedAt: number; sentAt: number }> | null = null;
        void Promise.all(answers).then((done) => {
          all = done;
        });
        while (all === null) {
          if (s.count() > 0) await s.waitOne();
          else await new Promise((resolve) => setImmediate(resolve));
        }
        for (const { askedAt, sentAt } of all as Array<{ askedAt: number; sentAt: number }>)
          expect(sentAt).toBeGreaterThanOrEqual(askedAt);
        expect(sent).toBeLessThanOrEqual(gaps.length);
      }),
      { numRuns: 300 },
    );
  });

  it('sends one query for the callers who asked while another was in flight', async () => {
    let release!: (seq: number) => void;
    let sent = 0;
    const query = new SharedQuery(
      () =>
        new Promise<number>((resolve) => {
          sent++;
          release = resolve;
        }),
    );
    const first = query.ask();
    const during = [query.ask(), query.ask(), query.ask()];
    expect(sent).toBe(1);
    release(1);
    expect(await first).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toBe(2);
    release(2);
    expect(await Promise.all(during)).toEqual([2, 2, 2]);
  });

  it('rejects the callers of a failed query, and sends the next', async () => {
    let fail = true;
    const query = new SharedQuery(async () => {
      if (fail) throw new Error('no answer');
      return 7;
    });
    await expect(query.ask()).rejects.toThrow('no answer');
    fail = false;
    expect(await query.ask()).toBe(7);
  });
});
