import type { RefKind } from '@clinic/contracts';
import { ReferenceCache } from '../src/storage/reference-cache';
import type { ReferenceData } from '../src/storage/reference-data';
import { VersionedCache } from '../src/cache/versioned-cache';
import { MemoryVersions } from './memory-versions';

// The rule of ReferenceCache over a real VersionedCache: a record read from the database while its kind is
// applied may answer that read, but never a read that starts after the change (versions in memory: one replica).

/** The database's reference records as the test sets them; each read waits for `gate` when one is set. */
class Records {
  names = new Map<number, string>();
  reads = 0;
  gate: Promise<void> | null = null;

  async many(_kind: RefKind, ids: number[]): Promise<Map<number, unknown>> {
    this.reads++;
    const seen = new Map(ids.filter((id) => this.names.has(id)).map((id) => [id, { id, name: this.names.get(id) }]));
    await this.gate;
    return seen;
  }
}

function setup(): { records: Records; refs: ReferenceCache } {
  const records = new Records();
  const cache = new VersionedCache(new MemoryVersions());
  return { records, refs: new ReferenceCache(records as unknown as ReferenceData, cache, ['user']) };
}

const nameOf = async (refs: ReferenceCache, id: number) =>
  ((await refs.get('user', id)) as { name?: string } | null)?.name;

it('answers a kept kind from memory until a record of the kind is applied', async () => {
  const { records, refs } = setup();
  records.names.set(5, 'Nimal');
  expect(await nameOf(refs, 5)).toBe('Nimal');
  expect(await nameOf(refs, 5)).toBe('Nimal');
  expect(records.reads).toBe(1);
  records.names.set(5, 'Nimal Perera');
  await refs.applied('user');
  expect(await nameOf(refs, 5)).toBe('Nimal Perera');
  expect(records.reads).toBe(2);
});

it('does not keep a record read before a change that landed while the read was on its way', async () => {
  const { records, refs } = setup();
  records.names.set(5, 'Nimal');
  let release!: () => void;
  records.gate = new Promise((resolve) => {
    release = resolve;
  });
  const overlapping = nameOf(refs, 5); // reads 'Nimal', held at the gate
  await new Promise((resolve) => setImmediate(resolve));
  records.names.set(5, 'நிமல்');
  await refs.applied('user');
  records.gate = null;
  release();
  expect(await overlapping).toBe('Nimal');
  expect(await nameOf(refs, 5)).toBe('நிமல்');
  expect(records.reads).toBe(2);
});

it('reads a kind it does not keep from the database every time', async () => {
  const { records, refs } = setup();
  records.names.set(9, 'Kamala');
  await refs.get('patient', 9);
  await refs.get('patient', 9);
  expect(records.reads).toBe(2);
});
