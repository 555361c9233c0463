import { KeyedMutex } from '../src/concurrency/mutex';

const turns = () => new Promise((resolve) => setImmediate(resolve));

/** Work that logs its start and end, and ends when the test releases it. */
function heldWork(log: string[], name: string, outcome: 'ok' | Error = 'ok') {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const work = async () => {
    log.push(`${name} starts`);
    await released;
    log.push(`${name} ends`);
    if (outcome !== 'ok') throw outcome;
    return name;
  };
  return { work, release };
}

describe('KeyedMutex', () => {
  it('runs the work of one key one at a time, in the order asked', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWork(log, name)) as [
      ReturnType<typeof heldWork>,
      ReturnType<typeof heldWork>,
      ReturnType<typeof heldWork>,
    ];
    const results = [a, b, c].map(({ work }) => mutex.run('bill:1', work));
    await turns();
    expect(log).toEqual(['a starts']);
    c.release();
    b.release();
    await turns();
    expect(log).toEqual(['a starts']);
    a.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
  });

  it('lets the work of other keys run meanwhile', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const one = heldWork(log, 'one');
    const two = heldWork(log, 'two');
    const results = [mutex.run('bill:1', one.work), mutex.run('bill:2', two.work)];
    await turns();
    expect(log).toEqual(['one starts', 'two starts']);
    two.release();
    one.release();
    expect(await Promise.all(results)).toEqual(['one', 'two']);
  });

  it("gives a failure to its own caller only, and runs the key's next work after it", async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const failing = heldWork(log, 'failing', new Error('refused'));
    const next = heldWork(log, 'next');
    const first = mutex.run('bill:1', failing.work);
    const second = mutex.run('bill:1', next.work);
    failing.release();
    next.release();
    await expect(first).rejects.toThrow('refused');
    await expect(second).resolves.toBe('next');
    expect(log).toEqual(['failing starts', 'failing ends', 'next starts', 'next ends']);
  });

  it('keeps work asked after the first one ended behind the work still queued', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const first = heldWork(log, 'first');
    const second = heldWork(log, 'second');
    const third = heldWork(log, 'third');
    const results = [mutex.run('bill:1', first.work), mutex.run('bill:1', second.work)];
    first.release();
    await results[0];
    await turns();
    results.push(mutex.run('bill:1', third.work));
    third.release();
    await turns();
    expect(log).toEqual(['first starts', 'first ends', 'second starts']);
    second.release();
    expect(await Promise.all(results)).toEqual(['first', 'second', 'third']);
  });

  it('runs work asked after the key went idle at once', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    await mutex.run('bill:1', async () => 'done');
    const later = heldWork(log, 'later');
    const result = mutex.run('bill:1', later.work);
    await turns();
    expect(log).toEqual(['later starts']);
    later.release();
    await expect(result).resolves.toBe('later');
  });
});
