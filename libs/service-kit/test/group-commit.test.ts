import fc from 'fast-check';
import { GroupCommit } from '../src/concurrency/group-commit';

/** A write that waits until the test settles it, and the groups it was given, in order. */
function heldWrites() {
  const held = { groups: [] as string[][], pending: [] as Array<{ resolve(): void; reject(err: unknown): void }> };
  const write = (items: string[]) =>
    new Promise<void>((resolve, reject) => {
      held.groups.push(items);
      held.pending.push({ resolve, reject });
    });
  /** Settles the oldest write still held, then lets the next group start. */
  const settle = async (outcome: 'ok' | Error) => {
    const next = held.pending.shift()!;
    if (outcome === 'ok') next.resolve();
    else next.reject(outcome);
    await turns();
  };
  return { held, write, settle };
}

const turns = () => new Promise((resolve) => setImmediate(resolve));

/** A submission's outcome once it settles: 'written' or its error's message. */
const outcomeOf = (submitted: Promise<void>) =>
  submitted.then(
    () => 'written',
    (err: Error) => err.message,
  );

describe('GroupCommit', () => {
  it('writes the first submission at once and those made meanwhile together in the next write', async () => {
    const { held, write, settle } = heldWrites();
    const commits = new GroupCommit(write);
    const first = commits.submit(['a']);
    const later = [commits.submit(['b', 'c']), commits.submit(['d'])];
    await turns();
    expect(held.groups).toEqual([['a']]);
    await settle('ok');
    expect(held.groups).toEqual([['a'], ['b', 'c', 'd']]);
    await settle('ok');
    expect(await Promise.all([first, ...later].map(outcomeOf))).toEqual(['written', 'written', 'written']);
  });

  it('settles each submission with the write that held its items, not before', async () => {
    const { write, settle } = heldWrites();
    const commits = new GroupCommit(write);
    const settled: string[] = [];
    void commits.submit(['a']).then(() => settled.push('a'));
    void commits.submit(['b']).then(() => settled.push('b'));
    await turns();
    expect(settled).toEqual([]);
    await settle('ok');
    expect(settled).toEqual(['a']);
    await settle('ok');
    expect(settled).toEqual(['a', 'b']);
  });

  it('rejects only the submissions of a failed write, with its error, and goes on with the next group', async () => {
    const { held, write, settle } = heldWrites();
    const commits = new GroupCommit(write);
    const first = outcomeOf(commits.submit(['a']));
    const second = [outcomeOf(commits.submit(['b'])), outcomeOf(commits.submit(['c']))];
    await turns();
    await settle(new Error('disk full'));
    const third = outcomeOf(commits.submit(['d']));
    await settle('ok');
    await settle('ok');
    expect(held.groups).toEqual([['a'], ['b', 'c'], ['d']]);
    expect(await first).toBe('disk full');
    expect(await Promise.all([...second, third])).toEqual(['written', 'written', 'written']);
  });

  it('writes a submission made after the writes went idle at once, alone', async () => {
    const { held, write, settle } = heldWrites();
    const commits = new GroupCommit(write);
    const first = commits.submit(['a']);
    await turns();
    await settle('ok');
    await first;
    const next = commits.submit(['b']);
    await turns();
    expect(held.groups).toEqual([['a'], ['b']]);
    await settle('ok');
    await expect(next).resolves.toBeUndefined();
  });

  it('rejects the group of a write that throws before it awaits anything, and writes the next', async () => {
    const commits = new GroupCommit<string>((items) => {
      if (items.includes('bad')) throw new Error('refused');
      return Promise.resolve();
    });
    const outcomes = [commits.submit(['bad']), commits.submit(['ok'])].map(outcomeOf);
    expect(await Promise.all(outcomes)).toEqual(['refused', 'written']);
  });

  it('answers every caller with a query sent after it asked, sharing queries among callers of the moment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(fc.nat(5), { minLength: 1, maxLength: 30 }), async (s, gaps) => {
        let clock = 0;
        let sent = 0;
        // Each query answers the time it was sent at, once the scheduler lets it.
        const query = new GroupCommit<never, number>(() => {
          sent++;
          return s.schedule(Promise.resolve(clock), 'query');
        });
        const answers: Array<Promise<{ askedAt: number; sentAt: number }>> = [];
        for (const gap of gaps) {
          clock++;
          const askedAt = clock;
          answers.push(query.submit([]).then((sentAt) => ({ askedAt, sentAt })));
          for (let i = 0; i < gap && s.count() > 0; i++) await s.waitOne();
        }
        let all: Array<{ askedAt: number; sentAt: number }> | null = null;
        void Promise.all(answers).then((done) => {
          all = done;
        });
        while (all === null) {
          if (s.count() > 0) await s.waitOne();
          else await turns();
        }
        for (const { askedAt, sentAt } of all as Array<{ askedAt: number; sentAt: number }>)
          expect(sentAt).toBeGreaterThanOrEqual(askedAt);
        expect(sent).toBeLessThanOrEqual(gaps.length);
      }),
      { numRuns: 300 },
    );
  });

  it('answers the callers of one query with its result, and those who asked while it was in flight with the next', async () => {
    let release!: (seq: number) => void;
    let sent = 0;
    const query = new GroupCommit<never, number>(
      () =>
        new Promise<number>((resolve) => {
          sent++;
          release = resolve;
        }),
    );
    const first = query.submit([]);
    const during = [query.submit([]), query.submit([]), query.submit([])];
    expect(sent).toBe(1);
    release(1);
    expect(await first).toBe(1);
    await turns();
    expect(sent).toBe(2);
    release(2);
    expect(await Promise.all(during)).toEqual([2, 2, 2]);
  });
});
