/**
 * ScopedEntries on a clock of the test's own (the `now` each keep is given):
 * what it keeps, what it drops and when, and which loads may still keep
 * their value after an invalidation.
 */
import fc from 'fast-check';
import { ScopedEntries } from '../src/cache/scoped-entries';

/** An instant far from today: the entries only carry it. */
const T0 = Date.UTC(2091, 4, 6, 7, 8, 9);

const keptIds = <V>(entries: ScopedEntries<V>, ids: string[]) => ids.filter((id) => entries.has(id));

describe('ScopedEntries', () => {
  it('keeps a value with its scopes, its weight and the time it was kept', () => {
    const entries = new ScopedEntries<string>({ maxEntries: 10, weigh: (v) => v.length });
    entries.keep('list', ['charges:store:1'], 'abc', T0);
    expect(entries.find('list')).toEqual({ scopes: ['charges:store:1'], value: 'abc', keptAt: T0, weight: 3 });
    expect(entries.find('other')).toBeUndefined();
  });

  it('replaces the value under an id, with its new scopes only', () => {
    const entries = new ScopedEntries<string>({ maxEntries: 10 });
    entries.keep('one', ['old'], 'v1', T0);
    entries.keep('one', ['new'], 'v2', T0 + 1_000);
    expect(entries.find('one')).toMatchObject({ value: 'v2', keptAt: T0 + 1_000 });
    entries.invalidate(['old']);
    expect(entries.has('one')).toBe(true);
    entries.invalidate(['new']);
    expect(entries.has('one')).toBe(false);
  });

  it('drops what any of the invalidated scopes covers, and nothing else', () => {
    const entries = new ScopedEntries<string>({ maxEntries: 10 });
    entries.keep('a', ['s1'], 'a', T0);
    entries.keep('b', ['s2'], 'b', T0);
    entries.keep('ab', ['s1', 's2'], 'ab', T0);
    entries.keep('c', ['s3'], 'c', T0);
    entries.invalidate(['s2', 'unknown']);
    expect(keptIds(entries, ['a', 'b', 'ab', 'c'])).toEqual(['a', 'c']);
    entries.invalidate(['s1']);
    expect(keptIds(entries, ['a', 'c'])).toEqual(['c']);
  });

  it('drops the least recently used beyond its entries and its weight', () => {
    const entries = new ScopedEntries<string>({ maxEntries: 2, maxWeight: 10, weigh: (v) => v.length });
    entries.keep('a', ['s'], 'aaaa', T0);
    entries.keep('b', ['s'], 'bbbb', T0);
    entries.find('a');
    entries.keep('c', ['t'], 'cccc', T0);
    expect(keptIds(entries, ['a', 'b', 'c'])).toEqual(['a', 'c']);
    // 4 + 4 + 4 is over 10: the least recently used goes, though there is room for another entry.
    const roomy = new ScopedEntries<string>({ maxEntries: 5, maxWeight: 10, weigh: (v) => v.length });
    for (const id of ['a', 'b', 'c']) roomy.keep(id, ['s'], id.repeat(4), T0);
    expect(keptIds(roomy, ['a', 'b', 'c'])).toEqual(['b', 'c']);
  });

  it('keeps nothing heavier than its whole weight, and nothing at all with no entries allowed', () => {
    const entries = new ScopedEntries<string>({ maxEntries: 5, maxWeight: 10, weigh: (v) => v.length });
    entries.keep('small', ['s'], 'x', T0);
    entries.keep('huge', ['s'], 'x'.repeat(11), T0);
    expect(keptIds(entries, ['small', 'huge'])).toEqual(['small']);
    const none = new ScopedEntries<string>({ maxEntries: 0 });
    none.keep('a', ['s'], 'a', T0);
    expect(none.has('a')).toBe(false);
  });

  it('frees the weight of what it dropped or cleared', () => {
    const entries = new ScopedEntries<string>({ maxEntries: 10, maxWeight: 10, weigh: (v) => v.length });
    entries.keep('a', ['s'], 'a'.repeat(6), T0);
    entries.invalidate(['s']);
    entries.keep('b', ['t'], 'b'.repeat(6), T0);
    entries.keep('b', ['t'], 'b'.repeat(6), T0);
    entries.clear();
    entries.keep('c', ['u'], 'c'.repeat(6), T0);
    entries.keep('d', ['u'], 'd'.repeat(4), T0);
    expect(keptIds(entries, ['a', 'b', 'c', 'd'])).toEqual(['c', 'd']);
  });

  it('tells a load whether a scope it read was invalidated after the mark it started at', () => {
    const entries = new ScopedEntries<string>({ maxEntries: 10 });
    const started = entries.mark;
    entries.invalidate(['s1']);
    expect(entries.mark).toBe(started + 1);
    expect(entries.invalidatedSince(['s1'], started)).toBe(true);
    expect(entries.invalidatedSince(['s2', 'other'], started)).toBe(false);
    expect(entries.invalidatedSince(['s2', 's1'], started)).toBe(true);
    expect(entries.invalidatedSince(['s1'], entries.mark)).toBe(false);
    // Clearing the values keeps the marks: a load in flight is still refused.
    entries.clear();
    expect(entries.invalidatedSince(['s1'], started)).toBe(true);
  });

  it('refuses the loads in flight when it forgets its marks, and keeps those that start after', () => {
    const entries = new ScopedEntries<string>({ maxEntries: 10 });
    const before = entries.mark;
    for (let i = 0; i < 10_001; i++) entries.invalidate([`scope:${i}`]);
    // A scope never invalidated: only the forgetting can tell the old load it may not keep.
    expect(entries.invalidatedSince(['other'], before)).toBe(true);
    expect(entries.invalidatedSince(['other'], entries.mark)).toBe(false);
  });

  it('keeps what a plain list of the most recently used would keep, whatever the keeps, finds and invalidations', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const scopes = ['s', 't', 'u'];
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('keep' as const),
        id: fc.constantFrom(...ids),
        scopes: fc.subarray(scopes, { minLength: 1 }),
        weight: fc.integer({ min: 0, max: 6 }),
      }),
      fc.record({ kind: fc.constant('find' as const), id: fc.constantFrom(...ids) }),
      fc.record({ kind: fc.constant('invalidate' as const), scopes: fc.subarray(scopes, { minLength: 1 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.integer({ min: 0, max: 3 }), (ops, maxEntries) => {
        const maxWeight = 10;
        const entries = new ScopedEntries<number>({ maxEntries, maxWeight, weigh: (w) => w });
        /** The model: least recently used first. */
        let model: Array<{ id: string; scopes: string[]; weight: number }> = [];
        for (const step of ops) {
          if (step.kind === 'keep') {
            entries.keep(step.id, step.scopes, step.weight, T0);
            if (maxEntries <= 0 || step.weight > maxWeight) continue;
            model = [
              ...model.filter((e) => e.id !== step.id),
              { id: step.id, scopes: step.scopes, weight: step.weight },
            ];
            const total = () => model.reduce((sum, e) => sum + e.weight, 0);
            while (model.length > maxEntries || total() > maxWeight) model.shift();
          } else if (step.kind === 'find') {
            entries.find(step.id);
            const hit = model.find((e) => e.id === step.id);
            if (hit) model = [...model.filter((e) => e !== hit), hit];
          } else {
            entries.invalidate(step.scopes);
            model = model.filter((e) => !e.scopes.some((scope) => step.scopes.includes(scope)));
          }
          expect(keptIds(entries, ids)).toEqual(ids.filter((id) => model.some((e) => e.id === id)));
        }
      }),
    );
  });
});
