/**
 * The cache's rules on a stream and a database of the test's own: writes that land and store their marks in separate
 * steps, version reads the stream answers whenever the test says (from its state then) or fails, loads that read the
 * database whenever the test says. Whatever the order, a read that starts after a write was acknowledged never
 * answers what that write replaced (docs/CACHE.md).
 */
import { fc, test } from '@fast-check/jest';
import { VersionedCache, type VersionSource } from '../src/cache/versioned-cache';
import { MemoryVersions } from './memory-versions';

const SCOPES = ['a', 'b'] as const;
type Scope = (typeof SCOPES)[number];
/** Keys and the scopes their values depend on: one each, and one on both. */
const KEYS: Record<string, Scope[]> = { ka: ['a'], kb: ['b'], kab: ['a', 'b'] };

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** The database, the stream's marks, and what was acknowledged to clients. */
class World {
  readonly db: Record<Scope, number> = { a: 0, b: 0 };
  readonly acknowledged: Record<Scope, number> = { a: 0, b: 0 };
  readonly marks = new Map<string, string>();
  private seq = 0;
  /** The stream made anew (its store lost): its sequences start again, at another time. */
  private incarnation = 0;
  /** Writes landed whose marks are not stored yet. */
  readonly landed: Scope[] = [];

  land(scope: Scope): void {
    this.db[scope]++;
    this.landed.push(scope);
  }

  /** The oldest landed write stores its mark, then it is acknowledged. */
  mark(): void {
    const scope = this.landed.shift();
    if (!scope) return;
    this.markNow(scope);
    this.acknowledged[scope] = this.db[scope];
  }

  markNow(scope: string): void {
    this.marks.set(scope, `${++this.seq}@${this.incarnation}`);
  }

  wipe(): void {
    this.marks.clear();
    this.seq = 0;
    this.incarnation++;
  }
}

class Reader {
  readonly asked: Array<{ scopes: string[]; resolve(versions: Map<string, string>): void; reject(e: Error): void }> =
    [];
  readonly loads: Array<{ key: string; resolve(value: number[]): void }> = [];
  readonly stale: string[] = [];
  readonly cache: VersionedCache;

  constructor(
    private readonly world: World,
    /** A gateway: it keeps what `service` shared, and answers it while its versions are unchanged. */
    private readonly service?: Reader,
  ) {
    const versions: VersionSource = {
      of: (scopes) => new Promise((resolve, reject) => this.asked.push({ scopes, resolve, reject })),
      // A read marks a scope that has no version yet.
      bump: async (scopes) => {
        for (const scope of scopes) this.world.markNow(scope);
      },
    };
    this.cache = new VersionedCache(versions, { max: 10 });
  }

  async read(key: string): Promise<void> {
    const scopes = KEYS[key]!;
    const required = scopes.map((scope) => this.world.acknowledged[scope]);
    const value = this.service ? await this.throughGateway(key) : await this.cache.get(scopes, key, this.load(key));
    if (value.some((version, i) => version < required[i]!))
      this.stale.push(`${key}: answered ${value} after ${required} was acknowledged`);
  }

  private load(key: string): () => Promise<number[]> {
    return () => new Promise<number[]>((resolve) => this.loads.push({ key, resolve }));
  }

  private async throughGateway(key: string): Promise<number[]> {
    const kept = (await this.cache.find(key)) as number[] | undefined;
    if (kept) return kept;
    let stamps: string[] | null = null;
    const value = await this.service!.cache.get(KEYS[key]!, key, this.service!.load(key), (shared) => {
      stamps = shared;
    });
    if (stamps) this.cache.keep(key, KEYS[key]!, (stamps as string[]).join(','), value);
    return value;
  }

  answer(): void {
    const asked = this.asked.shift();
    asked?.resolve(new Map(asked.scopes.map((scope) => [scope, this.world.marks.get(scope) ?? ''])));
  }

  /** The oldest load reads the database now. */
  dbRead(): void {
    const load = this.loads.shift();
    load?.resolve(KEYS[load.key]!.map((scope) => this.world.db[scope]));
  }
}

/** Two service replicas and a gateway in front of the first. */
interface Readers {
  all: Reader[];
  reads: Promise<void>[];
}

type Command = fc.AsyncCommand<World, Readers>;
const command = (name: string, run: (world: World, readers: Readers) => void): Command => ({
  check: () => true,
  run: async (world, readers) => {
    run(world, readers);
    await settle();
  },
  toString: () => name,
});

/** Every event the cache may meet, in any order: writes, stream answers and failures, database reads, the stream lost. */
const commands = [
  fc.constantFrom(...SCOPES).map((scope) => command(`land(${scope})`, (world) => world.land(scope))),
  fc.constant(command('mark', (world) => world.mark())),
  fc.constant(command('wipe', (world) => world.wipe())),
  fc
    .tuple(fc.nat(2), fc.constantFrom(...Object.keys(KEYS)))
    .map(([r, key]) => command(`read(${r},${key})`, (_, rs) => rs.reads.push(rs.all[r]!.read(key)))),
  fc.nat(2).map((r) => command(`answer(${r})`, (_, rs) => rs.all[r]!.answer())),
  fc.nat(2).map((r) => command(`fail(${r})`, (_, rs) => rs.all[r]!.asked.shift()?.reject(new Error('away')))),
  fc.nat(1).map((r) => command(`dbRead(${r})`, (_, rs) => rs.all[r]!.dbRead())),
];

/** Whatever still waits is answered, until every read has ended: what they answered is then known. */
async function drain({ all, reads }: Readers): Promise<string[]> {
  let ended = false;
  void Promise.all(reads).then(() => {
    ended = true;
  });
  while (!ended) {
    for (const reader of all) {
      while (reader.asked.length > 0) reader.answer();
      while (reader.loads.length > 0) reader.dbRead();
    }
    await settle();
  }
  return all.flatMap((r) => r.stale);
}

describe('VersionedCache', () => {
  test.prop([fc.commands(commands, { size: 'max', maxCommands: 100 })], { numRuns: 1000 })(
    'never answers a read with what a write acknowledged before it replaced, in any order of events',
    async (cmds) => {
      const world = new World();
      const [a, b] = [new Reader(world), new Reader(world)];
      const readers: Readers = { all: [a, b, new Reader(world, a)], reads: [] };
      await fc.asyncModelRun(() => ({ model: world, real: readers }), cmds);
      expect(await drain(readers)).toEqual([]);
    },
  );

  test.prop(
    [
      fc.scheduler(),
      fc.array(fc.constantFrom(...Object.keys(KEYS)), { minLength: 1, maxLength: 8 }),
      fc.array(fc.constantFrom(...SCOPES), { maxLength: 6 }),
    ],
    { numRuns: 500 },
  )(
    'never answers stale under fast-check’s scheduler, its version reads answered late with what the stream held when asked',
    async (s, reads, writes) => {
      const world = new World();
      const stale: string[] = [];
      const cache = new VersionedCache({
        // The oldest answer the stream may give: what it held when the read was sent.
        of: s.scheduleFunction(async (scopes: string[]) => new Map(scopes.map((x) => [x, world.marks.get(x) ?? '']))),
        bump: async (scopes) => {
          for (const scope of scopes) world.markNow(scope);
        },
      });
      const read = async (key: string) => {
        const scopes = KEYS[key]!;
        const required = scopes.map((scope) => world.acknowledged[scope]);
        const load = () => s.schedule(Promise.resolve(scopes.map((scope) => world.db[scope])));
        const value = await cache.get(scopes, key, load);
        if (value.some((version, i) => version < required[i]!)) stale.push(`${key}: ${value} after ${required}`);
      };
      const step = () => s.schedule(Promise.resolve());
      const tasks = [
        ...writes.map(async (scope) => {
          await step();
          world.land(scope);
          await step();
          world.mark();
        }),
        ...reads.map(async (key) => {
          await step();
          await read(key);
        }),
      ];
      await s.waitFor(Promise.all(tasks));
      expect(stale).toEqual([]);
    },
  );

  it('answers a repeated read from memory, joins a load in progress, and reads again after a write', async () => {
    const versions = new MemoryVersions();
    const cache = new VersionedCache(versions);
    let value = 'v0';
    let loads = 0;
    const load = async () => {
      loads++;
      return value;
    };
    expect(await Promise.all([cache.get('s', 'k', load), cache.get('s', 'k', load)])).toEqual(['v0', 'v0']);
    expect(await cache.get('s', 'k', load)).toBe('v0');
    expect(loads).toBe(1);
    value = 'v1';
    await cache.bump('s');
    expect(versions.marks.get('s')).toBe(3); // each first read marked the scope that had no version, then the write
    expect(await cache.get('s', 'k', load)).toBe('v1');
    expect(loads).toBe(2);
  });

  it('sends nothing (nor waits behind a mark in flight) for no scope', async () => {
    const versions = new MemoryVersions();
    const bump = jest.spyOn(versions, 'bump');
    const cache = new VersionedCache(versions);
    await cache.bump('s', 't');
    await cache.bump();
    expect(bump.mock.calls).toEqual([[['s', 't']]]);
  });

  it('keeps nothing while the versions cannot be read, and no failed load', async () => {
    let away = true;
    const memory = new MemoryVersions();
    const cache = new VersionedCache({
      of: (scopes) => (away ? Promise.reject(new Error('away')) : memory.of(scopes)),
      bump: (scopes) => memory.bump(scopes),
    });
    const shared: Array<string[] | null> = [];
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('s', 'k', load, (stamps) => shared.push(stamps))).toBe(1);
    expect(await cache.get('s', 'k', load)).toBe(2);
    away = false;
    await expect(cache.get('s', 'k', () => Promise.reject(new Error('db away')))).rejects.toThrow('db away');
    expect(await cache.get('s', 'k', load, (stamps) => shared.push(stamps))).toBe(3);
    expect(await cache.get('s', 'k', load)).toBe(3);
    expect(shared).toEqual([null, ['s=1']]);
  });

  it('reads again an entry past its age', async () => {
    // lru-cache reads a start of 0 as "no age": the clock starts later.
    const clock = { ms: 1_000, now: () => clock.ms };
    const cache = new VersionedCache(new MemoryVersions(), { ttl: 30_000, ttlResolution: 0, perf: clock });
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('s', 'k', load);
    clock.ms = 31_000;
    expect(await cache.get('s', 'k', load)).toBe(1);
    clock.ms = 31_001;
    expect(await cache.get('s', 'k', load)).toBe(2);
  });
});
