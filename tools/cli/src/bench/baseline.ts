/**
 * The benchmark's first part, on the demo data: the charge list, a month of
 * sessions and bill creation, through the gateway at 1, 16 and 64 connections
 * and straight to each service over NATS, so that the gateway's and the NATS
 * hop's shares of the latency show.
 */
import { BillingSubjects, CatalogueSubjects, SessionsSubjects } from '@clinic/contracts';
import { doctorRecord, parseSeedFile, seedReferenceData } from '@clinic/devstack';
import { connectNats, createLogger } from '@clinic/service-kit';
import { loadDemoDataOnFirstStart } from '../demo';
import { autocannon, CONCURRENCY, direct, probe, say, type Request } from './measure';
import { stackProcesses, withCpuPerRequest } from './process-cpu';
import type { LatencyStats } from './stats';
import { api, type Target } from './target';

interface Scenario extends Request {
  name: string;
  subject: string;
  /** The body for concurrency `c` (writes use one bill date per run). */
  bodyFor?: (c: number, via: 'http' | 'nats') => Record<string, unknown>;
}

const MOST_CONNECTIONS = Math.max(...CONCURRENCY);

export interface ScenarioFigures {
  name: string;
  http: Record<number, LatencyStats>;
  direct: Record<number, LatencyStats>;
  probe: LatencyStats;
  /** CPU ms per request of each process of a stack the bench started, at the most connections through the gateway. */
  cpu?: Record<string, number>;
}

const benchDoctor = (id: number) =>
  doctorRecord(id, {
    name: `Dr. Bench ${id}`,
    schedule: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'].map((day) => ({
      day,
      session_no: 1,
      start_time: '08:00',
      end_time: '12:00',
      max_patients: 20,
    })),
  });

function nextMonth(ahead: number): string {
  const d = new Date();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + ahead);
  return d.toISOString().slice(0, 7);
}

/** The bill date each write run uses, so that every run numbers its own date from 0001. */
function writeDate(c: number, via: 'http' | 'nats'): string {
  return `2091-${via === 'http' ? '01' : '02'}-${String(CONCURRENCY.indexOf(c) + 1).padStart(2, '0')}`;
}

/** Demo data (npm start's, already there with GATEWAY_URL) and six more doctors, so that branch 1 has a month of sessions. */
export async function prepareDemo(target: Target): Promise<Record<string, unknown>> {
  if (target.stack) await loadDemoDataOnFirstStart(target.stack, target.token);
  const month = nextMonth(2);
  if (target.nats) {
    const nc = await connectNats(
      { url: target.nats.url, user: 'ops', password: target.nats.passwords.ops },
      { name: 'bench', log: createLogger('bench', 'warn'), waitForServer: false },
    );
    await seedReferenceData(nc, parseSeedFile({ doctors: [11, 12, 13, 14, 15, 16].map(benchDoctor) }));
    await nc.close();
  }
  const created = await api(target, 'POST', '/auto_create_sessions', { month, store_id: 1 });
  const sessions = await api(target, 'GET', '/all_sessions?store_id=1');
  const items = (await api(target, 'GET', '/hospital_charges?store_id=1&status=Active')).charges.slice(0, 3);
  return {
    month,
    sessions_created: created.created,
    sessions_listed: sessions.sessions.length,
    items: items.map((c: any) => ({ charge_id: c.id, charge_name: c.charge_name, unit_price: c.amount, qty: 1 })),
  };
}

export async function measureBaseline(
  target: Target,
): Promise<{ setup: Record<string, unknown>; scenarios: ScenarioFigures[] }> {
  const setup = await prepareDemo(target);
  const bill = (c: number, via: 'http' | 'nats') => ({
    patient_name: 'Bench Patient',
    patient_contact: '0771234567',
    bill_date: writeDate(c, via),
    payment_method: 'Cash',
    store_id: 1,
    items: setup.items,
    received_amount: 10000,
    balance_amount: 0,
  });
  const scenarios: Scenario[] = [
    {
      name: 'GET /hospital_charges',
      method: 'GET',
      path: '/hospital_charges',
      query: { store_id: '1' },
      subject: CatalogueSubjects.list,
    },
    {
      name: 'GET /all_sessions (a month)',
      method: 'GET',
      path: '/all_sessions',
      query: { store_id: '1' },
      subject: SessionsSubjects.list,
    },
    {
      name: 'POST /lab_bills (3 items)',
      method: 'POST',
      path: '/lab_bills',
      bodyFor: bill,
      subject: BillingSubjects.create,
    },
  ];
  const figures: ScenarioFigures[] = [];
  for (const scenario of scenarios) {
    const entry: ScenarioFigures = { name: scenario.name, http: {}, direct: {}, probe: undefined as never };
    for (const c of CONCURRENCY) {
      say(`${scenario.name}: ${c} connection(s) through the gateway`);
      const run = () => autocannon(target, { ...scenario, body: scenario.bodyFor?.(c, 'http') }, c);
      if (target.stack && c === MOST_CONNECTIONS) {
        const { cpu, ...stats } = await withCpuPerRequest(stackProcesses(target.stack), run);
        entry.http[c] = stats;
        entry.cpu = cpu;
      } else entry.http[c] = await run();
    }
    // A date of its own: the probe's bills are numbered apart from autocannon's.
    entry.probe = await probe(target, {
      ...scenario,
      body: scenario.bodyFor ? { ...scenario.bodyFor(1, 'http'), bill_date: '2091-03-01' } : undefined,
    });
    if (target.nats) {
      for (const c of CONCURRENCY) {
        say(`${scenario.name}: ${c} in flight straight to ${scenario.subject}`);
        const envelope = scenario.bodyFor ? { body: scenario.bodyFor(c, 'nats') } : { query: scenario.query };
        entry.direct[c] = await direct(target, scenario.subject, envelope, c);
      }
    }
    figures.push(entry);
  }
  return { setup, scenarios: figures };
}
