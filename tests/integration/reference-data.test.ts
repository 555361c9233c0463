/**
 * A service's copy of the reference records against the real database
 * server: a version older than the one stored (a redelivery, another replica
 * behind) changes nothing and wakes no listener, so that an outdated leave
 * cancels no booking; the same message again stands again.
 */
import { createLogger, ReferenceData, type AppliedRecord } from '@clinic/service-kit/internal';
import { startLocalParts, stopLocalParts, type LocalParts } from './local-parts';

const log = createLogger('reference-data-test', 'silent');
let parts: LocalParts;
let refs: ReferenceData;
const heard: AppliedRecord[] = [];

beforeAll(async () => {
  parts = await startLocalParts('reference-data', 'sessions', 'reference_data_test', log);
  refs = new ReferenceData(parts.db, ['doctor_leave']);
  refs.onApplied(async (_kind, record) => {
    heard.push(record);
  });
});
afterAll(() => stopLocalParts(parts));

const leave = (from_date: string, to_date: string) => ({ id: 31, doctor_id: 7, from_date, to_date });

it('applies a newer version and tells its listeners; an older one is neither stored nor heard', async () => {
  const applied = await refs.apply('doctor_leave', leave('2090-01-10', '2090-01-12'), 10);
  expect(heard).toEqual([{ ...leave('2090-01-10', '2090-01-12'), deleted: false }]);
  expect(applied).toBe(true);

  // Sequence 5 was the leave before it was shortened: delivered late, it must not cancel those days again.
  const outdated = await refs.apply('doctor_leave', leave('2090-01-01', '2090-01-31'), 5);
  expect(heard).toHaveLength(1);
  expect(outdated).toBe(false);
  expect(await refs.get('doctor_leave', 31)).toMatchObject({ ...leave('2090-01-10', '2090-01-12'), _seq: 10 });
});

it('applies the same message again (its first listeners may have failed) and a deletion after it', async () => {
  heard.length = 0;
  expect(await refs.apply('doctor_leave', leave('2090-01-10', '2090-01-12'), 10)).toBe(true);
  expect(await refs.apply('doctor_leave', { id: 31, deleted: true }, 12)).toBe(true);
  expect(await refs.apply('doctor_leave', leave('2090-01-10', '2090-01-12'), 11)).toBe(false);
  expect(heard).toEqual([
    { ...leave('2090-01-10', '2090-01-12'), deleted: false },
    { id: 31, deleted: true },
  ]);
  expect(await refs.get('doctor_leave', 31)).toBeNull();
});
