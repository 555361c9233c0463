import { VersionedCache } from '../src/cache/versioned-cache';
import { createLogger } from '../src/process/logger';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A stream of the test's own: what it stored, and a latest sequence the test sets. */
function fakeStream() {
  const stream = {
    stored: [] as string[][],
    last: 0,
    store: async (scopes: string[]) => {
      stream.stored.push(scopes);
    },
    latest: async () => stream.last,
  };
  return stream;
}

/** A database value the test changes, and loads that wait for the test to let them read it. */
function slowValue(initial: string) {
  const db = { value: initial, loads: 0, gates: [] as Array<() => void> };
  const load = async () => {
    db.loads++;
    const seen = db.value;
    await new Promise<void>((resolve) => db.gates.push(resolve));
    return seen;
  };
  return { db, load };
}

describe('VersionedCache', () => {
  it('answers a repeated read from memory, and a read after a write from the database', async () => {
    const stream = fakeStream();
    const cache = new VersionedCache(stream, createLogger('test', 'silent'));
    let value = 'v0';
    let loads = 0;
    const load = async () => {
      loads++;
      return value;
    };
    expect(await cache.get('s', 'k', load)).toBe('v0');
    expect(await cache.get('s', 'k', load)).toBe('v0');
    expect(loads).toBe(1);
    value = 'v1';
    await cache.bump('s', 's');
    expect(stream.stored).toEqual([['s']]);
    expect(await cache.get('s', 'k', load)).toBe('v1');
  });

  it('lets a read join a load in progress only when nothing it reads changed since the load began', async () => {
    const stream = fakeStream();
    const cache = new VersionedCache(stream, createLogger('test', 'silent'));
    const { db, load } = slowValue('old');
    const early = cache.get('s', 'k', load);
    await settle();
    // Another replica's write lands, and its invalidation is stored (seq 1), not yet delivered here.
    db.value = 'new';
    stream.last = 1;
    const late = cache.get('s', 'k', load);
    await settle();
    cache.deliver({ seq: 1, previous: 0, scopes: ['s'] });
    await settle();
    for (const open of db.gates.splice(0)) open();
    await settle();
    for (const open of db.gates.splice(0)) open();
    expect(await early).toBe('old');
    expect(await late).toBe('new');
    expect(db.loads).toBe(2);
  });

  it('shares one load among reads of the moment when nothing changed', async () => {
    const cache = new VersionedCache(fakeStream(), createLogger('test', 'silent'));
    const { db, load } = slowValue('v');
    const reads = [cache.get('s', 'k', load), cache.get('s', 'k', load), cache.get('s', 'k', load)];
    await settle();
    for (const open of db.gates.splice(0)) open();
    expect(await Promise.all(reads)).toEqual(['v', 'v', 'v']);
    expect(db.loads).toBe(1);
  });

  it('answers an entry past its age and loads it again behind the answer', async () => {
    let now = 0;
    const cache = new VersionedCache(fakeStream(), createLogger('test', 'silent'), { maxAgeMs: 1000, now: () => now });
    let value = 'v0';
    let loads = 0;
    const load = async () => {
      loads++;
      return value;
    };
    await cache.get('s', 'k', load);
    value = 'v1'; // a change no invalidation told
    now = 1000;
    expect(await cache.get('s', 'k', load)).toBe('v0');
    await settle();
    expect(loads).toBe(2);
    expect(await cache.get('s', 'k', load)).toBe('v1');
  });
});
