import { FreshReads } from '../src/operations/fresh-reads';

/** A read the test ends by hand: its number, and how to answer it. */
function reads() {
  const started: Array<{ id: number; answer: (value: string) => void; fail: (err: Error) => void }> = [];
  const fresh = new FreshReads<string>(
    (id) =>
      new Promise<string>((answer, fail) => {
        started.push({ id, answer, fail });
      }),
  );
  return { fresh, started };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

it('shares one read among the requests that arrive before it begins, and per session', async () => {
  const { fresh, started } = reads();
  const now = Date.now();
  const a = fresh.get(1, now);
  const b = fresh.get(1, now);
  const other = fresh.get(2, now);
  expect(started.map((r) => r.id)).toEqual([1, 2]);
  started[0]!.answer('first');
  started[1]!.answer('other');
  expect(await Promise.all([a, b, other])).toEqual(['first', 'first', 'other']);
});

it('gives a request that arrived after a read began the next read, shared by all that arrive meanwhile', async () => {
  const { fresh, started } = reads();
  const first = fresh.get(1, 1_000);
  // Arrived after the first read began (its clock is later): it may not take that read's answer.
  const later = Date.now() + 60_000;
  const second = fresh.get(1, later);
  const third = fresh.get(1, later);
  expect(started).toHaveLength(1);
  started[0]!.answer('before');
  expect(await first).toBe('before');
  await tick();
  expect(started).toHaveLength(2);
  started[1]!.answer('after');
  expect(await Promise.all([second, third])).toEqual(['after', 'after']);
});

it("fails a read's waiters with its failure, and reads again for the next", async () => {
  const { fresh, started } = reads();
  const failing = fresh.get(1);
  started[0]!.fail(new Error('pool timeout'));
  await expect(failing).rejects.toThrow('pool timeout');
  const again = fresh.get(1);
  expect(started).toHaveLength(2);
  started[1]!.answer('ok');
  expect(await again).toBe('ok');
});
