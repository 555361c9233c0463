/**
 * What the sessions e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import type { operations } from '@clinic/client';
import { branch, doctor } from './fixtures';
import { answerOf, startTestStack, TEST_TZ, type TestStack } from './harness';

dayjs.extend(utc);
dayjs.extend(timezone);

export let t: TestStack;
export const today = () => dayjs().tz(TEST_TZ);

/*
 * Dates come from disjoint windows, so that what one test creates never lands
 * on what another asserts, whatever today is:
 * - sessions added one by one: today - 3 days .. today + 71 days (inDays);
 * - the months the preview tests read without creating anything: year PREVIEW_YEAR;
 * - the months auto-creation tests fill, one month per test: year CREATION_YEAR;
 * - the leap February: a leap year at least CREATION_YEAR + 3.
 */
export const inDays = (n: number) => today().add(n, 'day').format('YYYY-MM-DD');
export const PREVIEW_YEAR = today().year() + 10;
export const CREATION_YEAR = PREVIEW_YEAR + 2;
export const creationMonth = (month: number) => `${CREATION_YEAR}-${String(month).padStart(2, '0')}`;

export const slot = (
  day: string,
  session_no: number,
  start_time: string | null,
  end_time: string | null,
  max_patients: number | null = null,
) => ({
  day,
  session_no,
  start_time,
  end_time,
  max_patients,
});

beforeAll(async () => {
  t = await startTestStack({ env: { REQUEST_TIMEOUT_MS: '20000' } });
  await t.seed({
    stores: [branch(1, 'Colombo Central'), branch(2, 'Kandy Branch')],
    doctors: [
      doctor(1, {
        name: 'Dr. Anura',
        schedule: [slot('Monday', 1, '08:00', '11:00', 20), slot('Wednesday', 1, '16:00', '19:00')],
      }),
      doctor(2, {
        name: 'Dr. Malini',
        store_id: 2,
        channeling_fee: 2000,
        specialization: 'Paediatrics',
        schedule: [slot('Saturday', 1, '08:30', '10:30', 10), slot('Saturday', 2, '14:00', '16:00', 10)],
      }),
      doctor(3, { status: 'Inactive', schedule: [slot('Friday', 1, '09:00', '12:00')] }),
      doctor(4, { store_id: null, schedule: [slot('Sunday', 1, '09:00', '12:00')] }),
      doctor(5, {
        name: 'Dr. Gaps',
        schedule: [slot('Tuesday', 1, null, '12:00'), slot('Thursday', 1, '17:00', '20:00')],
      }),
      doctor(6, { name: 'Dr. No Schedule' }),
      doctor(7, { name: 'Dr. Plain' }),
    ],
  });
});
afterAll(async () => {
  await t?.stop();
});

export let nextSessionNo = 1;
/** A session_no no other test used, so add_session never collides by accident. */
export const freshNo = () => nextSessionNo++;

/** POST /add_session: a morning session of Dr. Plain (7) in 30 days, `overrides` over it; the answer, whatever it is. */
export function postSession(overrides: Record<string, unknown> = {}) {
  const body = {
    doctor_id: 7,
    session_date: inDays(30),
    session_no: freshNo(),
    start_time: '09:00',
    end_time: '12:00',
    ...overrides,
  };
  return answerOf(t.api().POST('/add_session', { body }));
}

/** postSession, which must create the session: its id. */
export async function addSession(overrides: Record<string, unknown> = {}) {
  const res = await postSession(overrides);
  expect(res.status).toBe(201);
  return res.body.session_id as number;
}

/** PUT /update_session/{id} as an admin: the answer, whatever it is. */
export function updateSession(
  id: number,
  body: operations['updateSession']['requestBody']['content']['application/json'],
) {
  return answerOf(t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body }));
}

export async function getSession(id: number) {
  const res = await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: id } } }));
  expect(res.status).toBe(200);
  return res.body.session;
}
