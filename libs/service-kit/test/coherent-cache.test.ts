/**
 * The cache's rules on a clock and a network of the test's own: writers that
 * store invalidations, readers that get them late, lost, repeated or not at
 * all, and answers to "what is the latest?" that come back whenever the test
 * says. Whatever the order, a read that starts after a write was acknowledged
 * never answers what that write replaced (docs/CACHE.md).
 */
import fc from 'fast-check';
import { CoherentCache, type LoadTicket } from '../src/cache/coherent-cache';
import type { StoredInvalidation, Timers } from '../src/cache/follower';

const SCOPES = ['a', 'b'] as const;
type Scope = (typeof SCOPES)[number];
/** Keys and the scopes their values depend on: one each, and one on both. */
const KEYS: Record<string, Scope[]> = { ka: ['a'], kb: ['b'], kab: ['a', 'b'] };
const KEY_NAMES = Object.keys(KEYS);

class ManualTimers implements Timers {
  private next = 1;
  readonly pending = new Map<number, () => void>();
  setTimeout(fn: () => void): unknown {
    const id = this.next++;
    this.pending.set(id, fn);
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  fireOldest(): void {
    const [id, fn] = [...this.pending][0] ?? [];
    if (id === undefined || !fn) return;
    this.pending.delete(id);
    fn();
  }
}

/** The database and the stream: versions per scope, and what was acknowledged to clients. */
class World {
  readonly versions: Record<Scope, number> = { a: 0, b: 0 };
  readonly acknowledged: Record<Scope, number> = { a: 0, b: 0 };
  last = 0;
  readonly readers: Reader[] = [];

  /** A write lands, its invalidation is stored (and republished to every reader), then it is acknowledged. */
  write(scope: Scope): void {
    this.versions[scope]++;
    const stored: StoredInvalidation = { seq: this.last + 1, previous: this.last, scopes: [scope] };
    this.last = stored.seq;
    for (const reader of this.readers) reader.inbox.push(stored);
    this.acknowledged[scope] = this.versions[scope];
  }

  valueOf(key: string): number[] {
    return KEYS[key]!.map((scope) => this.versions[scope]);
  }
}

interface Load {
  key: string;
  ticket: LoadTicket;
  value: number[] | null;
}

class Reader {
  readonly inbox: StoredInvalidation[] = [];
  readonly timers = new ManualTimers();
  readonly asked: Array<{ resolve(seq: number): void; reject(err: Error): void }> = [];
  readonly loads: Load[] = [];
  readonly cache: CoherentCache<number[]>;
  readonly stale: string[] = [];

  constructor(private readonly world: World) {
    this.cache = new CoherentCache({
      maxEntries: 10,
      latest: () => new Promise((resolve, reject) => this.asked.push({ resolve, reject })),
      timers: this.timers,
      now: () => 0,
    });
  }

  /** A read: answered from memory if proved current, else loaded from the database (read now or later). */
  async read(key: string): Promise<void> {
    const required = KEYS[key]!.map((scope) => this.world.acknowledged[scope]);
    const hit = await this.cache.current(key);
    if (hit) {
      if (hit.value.some((version, i) => version < required[i]!))
        this.stale.push(`${key}: answered ${hit.value} after ${required} was acknowledged`);
      return;
    }
    this.loads.push({ key, ticket: this.cache.begin(), value: null });
  }
}

type Kind = 'read' | 'deliver' | 'lose' | 'repeat' | 'answer' | 'fail' | 'timeout' | 'dbRead' | 'keep';
type Step = { kind: 'write'; scope: Scope } | { kind: Kind; reader: number; key: string };

/** Steps weighted towards what makes races: reads, deliveries, answers and loads between writes. */
const step = (readers: number): fc.Arbitrary<Step> => {
  const reader = fc.nat(readers - 1);
  const key = fc.constantFrom(...KEY_NAMES);
  const of = (kind: Kind, weight: number) => ({
    weight,
    arbitrary: fc.record({ kind: fc.constant(kind), reader, key }) as fc.Arbitrary<Step>,
  });
  return fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('write' as const), scope: fc.constantFrom(...SCOPES) }) },
    of('read', 4),
    of('deliver', 4),
    of('lose', 1),
    of('repeat', 1),
    of('answer', 4),
    of('fail', 1),
    of('timeout', 1),
    of('dbRead', 3),
    of('keep', 3),
  );
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function run(steps: Step[], readerCount = 2): Promise<string[]> {
  const world = new World();
  for (let i = 0; i < readerCount; i++) world.readers.push(new Reader(world));
  const reads: Promise<void>[] = [];
  for (const s of steps) {
    if (s.kind === 'write') {
      world.write(s.scope);
      continue;
    }
    const reader = world.readers[s.reader]!;
    switch (s.kind) {
      case 'read':
        reads.push(reader.read(s.key));
        break;
      case 'deliver': {
        const next = reader.inbox.shift();
        if (next) reader.cache.deliver(next);
        break;
      }
      case 'lose':
        reader.inbox.shift();
        break;
      case 'repeat':
        if (reader.inbox[0]) reader.inbox.push(reader.inbox[0]);
        break;
      case 'answer':
        reader.asked.shift()?.resolve(world.last);
        break;
      case 'fail':
        reader.asked.shift()?.reject(new Error('no answer'));
        break;
      case 'timeout':
        reader.timers.fireOldest();
        break;
      case 'dbRead': {
        const load = reader.loads.find((l) => l.value === null);
        if (load) load.value = world.valueOf(load.key);
        break;
      }
      case 'keep': {
        const load = reader.loads.find((l) => l.value !== null);
        if (load) {
          reader.loads.splice(reader.loads.indexOf(load), 1);
          reader.cache.keep(load.ticket, load.key, KEYS[load.key]!, load.value!);
        }
        break;
      }
    }
    await settle();
  }
  // Whatever is still waiting is answered now, in order, until every read has ended.
  let ended = false;
  void Promise.all(reads).then(() => {
    ended = true;
  });
  while (!ended) {
    for (const reader of world.readers) {
      while (reader.asked.length > 0) reader.asked.shift()!.resolve(world.last);
      while (reader.timers.pending.size > 0) reader.timers.fireOldest();
    }
    await settle();
  }
  return world.readers.flatMap((r) => r.stale);
}

describe('CoherentCache', () => {
  it('never answers a read with what a write acknowledged before it replaced, in any order of events', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step(2), { minLength: 20, maxLength: 100, size: 'max' }), async (steps) => {
        expect(await run(steps)).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers from memory when nothing changed (the cache is used at all)', async () => {
    const world = new World();
    const reader = new Reader(world);
    world.readers.push(reader);
    world.write('a');
    reader.cache.deliver(reader.inbox.shift()!);
    reader.loads.push({ key: 'ka', ticket: reader.cache.begin(), value: world.valueOf('ka') });
    reader.cache.keep(reader.loads[0]!.ticket, 'ka', ['a'], reader.loads[0]!.value!);
    const hit = reader.cache.current('ka');
    await settle();
    reader.asked.shift()!.resolve(world.last);
    expect((await hit)?.value).toEqual([1]);
  });

  it('answers no hit while the stream does not say what is latest, and starts again when it lags', async () => {
    const world = new World();
    const reader = new Reader(world);
    world.readers.push(reader);
    reader.cache.keep(reader.cache.begin(), 'ka', ['a'], [0]);
    const refused = reader.cache.current('ka');
    await settle();
    reader.asked.shift()!.reject(new Error('away'));
    expect(await refused).toBeUndefined();

    world.write('b'); // never delivered
    const lagging = reader.cache.current('ka');
    await settle();
    reader.asked.shift()!.resolve(world.last);
    await settle();
    reader.timers.fireOldest();
    expect(await lagging).toBeUndefined();
    expect(reader.cache.follower.position).toBe(1);
    // Emptied: the entry of before is gone even though its scope did not change.
    expect(await reader.cache.current('ka')).toBeUndefined();
  });
});
