/**
 * Idempotency records keep the hash of the first request's body: the stable
 * stringify that hashes it now must write every JSON body exactly as the
 * hand-written canonical form did, or a retry across the upgrade would be
 * refused as "a different body" (422).
 */
import fc from 'fast-check';
import stableStringify from 'safe-stable-stringify';

/** The canonical form hashed before safe-stable-stringify (services/billing/src/bills.ts until this change). */
function previousCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(previousCanonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${previousCanonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

it('writes every parsed JSON body as the previous canonical form did', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const parsed: unknown = JSON.parse(JSON.stringify(value));
      expect(stableStringify(parsed)).toBe(previousCanonicalJson(parsed));
    }),
    { numRuns: 2_000 },
  );
  const bill = {
    store_id: 1,
    items: [{ qty: 1, charge_id: 2, unit_price: 8.5 }],
    patient_name: 'Ünïcode "quoted"',
    '\u0000key': null,
    b: -0,
    a: 1e21,
  };
  expect(stableStringify(bill)).toBe(previousCanonicalJson(bill));
  expect(stableStringify(undefined) ?? 'null').toBe(previousCanonicalJson(undefined));
});
