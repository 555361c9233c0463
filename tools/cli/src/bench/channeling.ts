/**
 * Issue 42's channeling figures: bookings per second at 64 connections
 * spread over uncapped sessions (a session holds at most 1,000), and the
 * 8 a.m. rush: a thousand bookings at once for a session of forty, the p50 and
 * p99 of their answers. BENCH_PARTS=channeling.
 */
import { performance } from 'node:perf_hooks';
import { httpLoad, say, type Request } from './measure';
import { summarize, type LatencyStats } from './stats';
import { loadDemoDataOnFirstStart } from '../demo';
import { api, type Target } from './target';

const SESSIONS = Number(process.env.BENCH_CHANNELING_SESSIONS ?? 10);
const RUSH = 1000;
const PLACES = 40;

export interface ChannelingFigures {
  bookings: LatencyStats;
  rush: LatencyStats & { booked: number; refused: number };
}

let sessionNo = 0;
/** A session of the demo data's first doctor, a month ahead (uncapped without `maxPatients`). */
async function newSession(target: Target, maxPatients?: number): Promise<number> {
  const date = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const made = await api(target, 'POST', '/add_session', {
    doctor_id: 1,
    session_date: date,
    session_no: 500 + ++sessionNo,
    start_time: '08:00',
    end_time: '20:00',
    ...(maxPatients ? { max_patients: maxPatients } : {}),
  });
  return made.session_id;
}

const patient = (i: number) => ({ patient_name: `Bench Patient ${i}`, patient_contact: '0771234567' });

export async function measureChanneling(target: Target): Promise<ChannelingFigures> {
  if (target.stack) await loadDemoDataOnFirstStart(target.stack, target.token);
  say(`channeling: ${SESSIONS} uncapped sessions, bookings at 64 connections`);
  const ids: number[] = [];
  for (let i = 0; i < SESSIONS; i++) ids.push(await newSession(target));
  const request: Request = { method: 'POST', path: `/sessions/${ids[0]}/appointments` };
  const urls = ids.map((id) => `${target.gatewayUrl}/sessions/${id}/appointments`);
  const bookings = await httpLoad(
    target,
    request,
    Array.from({ length: 500 }, (_, i) => patient(i)),
    64,
    undefined,
    urls,
  );

  say(`channeling: the rush, ${RUSH} bookings at once for ${PLACES} places`);
  const rushId = await newSession(target, PLACES);
  const started = performance.now();
  const timed = await Promise.all(
    Array.from({ length: RUSH }, async (_, i) => {
      const t0 = performance.now();
      const response = await fetch(`${target.gatewayUrl}/sessions/${rushId}/appointments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(patient(i)),
      });
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - t0 };
    }),
  );
  const elapsed = performance.now() - started;
  const booked = timed.filter((r) => r.status === 201).length;
  const refused = timed.filter((r) => r.status === 409).length;
  const stats = summarize(
    timed.map((r) => r.ms),
    RUSH - booked - refused,
    elapsed,
  );
  return { bookings, rush: { ...stats, booked, refused } };
}

export function channelingLines(figures: ChannelingFigures): string[] {
  const { bookings, rush } = figures;
  return [
    '',
    'Channeling (issue 42)',
    `  POST /sessions/{id}/appointments, 64 connections over ${SESSIONS} uncapped sessions: ${bookings.rps} bookings/s, p50 ${bookings.p50} ms, p99 ${bookings.p99} ms, ${bookings.errors} errors`,
    `  the rush, ${RUSH} at once for ${PLACES} places: ${rush.booked} booked, ${rush.refused} refused as full, ${rush.errors} other; p50 ${rush.p50} ms, p99 ${rush.p99} ms, all answered in ${Math.round((rush.count / Math.max(1, rush.rps)) * 1000)} ms`,
  ];
}
