/**
 * The benchmark at scale: reads of bills, sessions and summaries measured on a
 * year of a busy clinic chain, right after a write to the branch (no cache can
 * answer) and on repeat, at several data sizes; writes with the data stored
 * and on an empty database.
 */
import { BillLoader, MEASURED_BRANCH, OTHER_BRANCHES, yearBefore } from './dataset';
import { autocannon, httpLoad, probe, SCALE_PROBE as PROBE, say, settle, type Request } from './measure';
import { measureSessions } from './scale-sessions';
import { checkNumbers, checkSummaries } from './checks';
import { measureMoney } from './money';
import { medianByRate, type LatencyStats, type WriteFigures } from './stats';
import { api, type Target } from './target';

const B = String(MEASURED_BRANCH);
export const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);

const today = () => new Date().toISOString().slice(0, 10);

/** A bill of the charge's branch with that charge, dated today unless `date` says otherwise. */
function newBill(
  charge: { id: number; charge_name: string; amount: number; store_id: number },
  date = today(),
  i = 0,
): Record<string, unknown> {
  return {
    patient_name: `Bench Patient ${i}`,
    patient_contact: '0770000000',
    bill_date: date,
    payment_method: ['Cash', 'Card', 'Online'][i % 3],
    store_id: charge.store_id,
    items: [{ charge_id: charge.id, charge_name: charge.charge_name, unit_price: charge.amount, qty: 1 }],
  };
}

export interface ReadFigures {
  after_write: LatencyStats;
  repeat?: LatencyStats;
}

export interface SizeFigures {
  bills: number;
  reads: Record<string, ReadFigures>;
}

/** The reads the issue names, each as a request (with its place in the sweep's ratio). */
function readRequests(
  loader: BillLoader,
): Array<{ name: string; request: Request; repeat: boolean; inRatio: boolean }> {
  // loader.dates: the 365 dates of yearBefore(); the first size loads thousands of bills into the measured branch.
  const mid = loader.dates[182]!;
  const weekEnd = loader.dates[188]!;
  const sample = loader.samples;
  const list = (query: Record<string, string>) => ({
    method: 'GET' as const,
    path: '/lab_bills',
    query: { store_id: B, ...query },
  });
  const summary = (query: Record<string, string>) => ({
    method: 'GET' as const,
    path: '/lab_bills/summary',
    query: { store_id: B, ...query },
  });
  return [
    { name: 'list page 1', request: list({}), repeat: true, inRatio: true },
    { name: 'list of a date', request: list({ date: mid }), repeat: true, inRatio: true },
    {
      name: 'list of a week, Cash',
      request: list({ from_date: mid, to_date: weekEnd, payment_method: 'Cash' }),
      repeat: true,
      inRatio: true,
    },
    { name: 'list page 200', request: list({ page: '200' }), repeat: true, inRatio: true },
    { name: 'search a full bill number', request: list({ search: sample.numbers[0]! }), repeat: false, inRatio: true },
    { name: 'search a full contact', request: list({ search: sample.contacts[1]! }), repeat: false, inRatio: true },
    { name: 'search "silva" (a tenth)', request: list({ search: 'silva' }), repeat: false, inRatio: false },
    { name: 'search "12" (most)', request: list({ search: '12' }), repeat: false, inRatio: false },
    { name: 'search "thari" (a word part)', request: list({ search: 'thari' }), repeat: false, inRatio: false },
    { name: 'summary of a day', request: summary({ date: mid }), repeat: false, inRatio: true },
    {
      name: 'summary of a month',
      request: summary({ from_date: loader.dates[150]!, to_date: loader.dates[180]! }),
      repeat: false,
      inRatio: true,
    },
    {
      name: 'summary of a year',
      request: summary({ from_date: loader.dates[0]!, to_date: loader.dates[364]! }),
      repeat: false,
      inRatio: true,
    },
    { name: 'summary of everything', request: summary({}), repeat: true, inRatio: true },
    {
      name: 'GET /lab_bills/{id}',
      request: { method: 'GET', path: `/lab_bills/${sample.ids[2]}` },
      repeat: false,
      inRatio: true,
    },
  ];
}

/**
 * The writes before the "after a write" reads: a bill of the measured branch
 * dated on each date of the year in turn. Dated all on today, the bench's own
 * writes (about 40,000 over a run) would make today a day of thousands of
 * bills, where a busy branch's day has 300 to 1,000 and the data set's days
 * about 1,370; the first read after a write recomputes the day it changed
 * (docs/PERFORMANCE.md gives what that costs per bill).
 */
function writesAcrossTheYear(loader: BillLoader, charge: any): Request[] {
  return loader.dates.map((date, i) => ({ method: 'POST', path: '/lab_bills', body: newBill(charge, date, i) }));
}

async function measureReads(target: Target, loader: BillLoader, charge: any): Promise<Record<string, ReadFigures>> {
  const writes = writesAcrossTheYear(loader, charge);
  const figures: Record<string, ReadFigures> = {};
  for (const { name, request, repeat } of readRequests(loader)) {
    say(`  ${name}`);
    const after = await probe(target, request, { ...PROBE, before: writes });
    figures[name] = { after_write: after, ...(repeat ? { repeat: await probe(target, request, PROBE) } : {}) };
  }
  return figures;
}

/** Every `everyMs`, a bill created in the measured branch while `measure` runs: no cached read lives longer. */
async function whileWriting<T>(
  target: Target,
  charge: any,
  measure: () => Promise<T>,
  everyMs = 100,
): Promise<T & { writes: number }> {
  let writing = true;
  let writes = 0;
  const writer = (async () => {
    while (writing) {
      await api(target, 'POST', '/lab_bills', newBill(charge, today(), writes));
      writes++;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  try {
    return { ...(await measure()), writes };
  } finally {
    writing = false;
    await writer;
  }
}

/** Rounds of each write scenario; the median round (by bills/s) is reported. */
const WRITE_ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 3);
const WRITE_WARM_UP_MS = 3_000;

/**
 * Bills per second at 64 connections, dated today or spread over 30 dates: the
 * rate a branch sustains, so each scenario is first run for a few seconds
 * unmeasured (the first writes after reads pay for cold pages and the
 * database's checkpoint), then measured for several rounds taken in turn with
 * the other scenario; one 10-second round varied by 10% or more between runs.
 */
async function measureWrites(target: Target, charge: any, dates: string[]): Promise<Record<string, WriteFigures>> {
  const write: Request = { method: 'POST', path: '/lab_bills' };
  const scenarios: Record<string, unknown[]> = {
    today: Array.from({ length: 64 }, (_, i) => newBill(charge, today(), i)),
    '30 dates': Array.from({ length: 30 }, (_, i) => newBill(charge, dates[i], i)),
  };
  for (const bodies of Object.values(scenarios)) await httpLoad(target, write, bodies, 64, WRITE_WARM_UP_MS);
  const rounds: Record<string, LatencyStats[]> = Object.fromEntries(Object.keys(scenarios).map((name) => [name, []]));
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    for (const [name, bodies] of Object.entries(scenarios))
      rounds[name]!.push(await httpLoad(target, write, bodies, 64));
  }
  return Object.fromEntries(
    Object.entries(rounds).map(([name, runs]) => [name, { ...medianByRate(runs), runs: runs.map((run) => run.rps) }]),
  );
}

export async function measureScale(target: Target): Promise<Record<string, any>> {
  const loader = new BillLoader(target, yearBefore(new Date()));
  await loader.open();
  const chargeOf = async (store: number) => ({
    ...(await api(target, 'GET', `/hospital_charges?store_id=${store}&status=Active`)).charges[0],
    store_id: store,
  });
  const charge = await chargeOf(MEASURED_BRANCH);
  // The write runs (thousands of bills dated today) go to another branch, so that the measured branch keeps the
  // data set's shape; what a write costs does not depend on its branch.
  const writeRunCharge = await chargeOf(OTHER_BRANCHES[0]!);
  const results: Record<string, any> = { sizes: [] as SizeFigures[] };
  try {
    say('writes on an empty database');
    results.writes_empty = await measureWrites(target, writeRunCharge, yearBefore(new Date(Date.UTC(2095, 0, 1))));
    for (const size of SIZES) {
      say(`loading bills up to ${size.toLocaleString('en')} through billing's storage layer`);
      const started = Date.now();
      await loader.loadTo(size);
      say(
        `  ${size.toLocaleString('en')} bills stored (${((Date.now() - started) / 1000).toFixed(0)} s for this step)`,
      );
      results.sizes.push({
        bills: size,
        load_seconds: (Date.now() - started) / 1000,
        reads: await measureReads(target, loader, charge),
      });
    }
    const largest = results.sizes[results.sizes.length - 1] as SizeFigures;
    say('reads at 64 connections');
    results.throughput = {} as Record<string, LatencyStats>;
    results.throughput_with_writes = {} as Record<string, LatencyStats>;
    for (const { name, request } of readRequests(loader).filter((r) => r.repeat)) {
      results.throughput[name] = await autocannon(target, request, 64);
      await settle();
      results.throughput_with_writes[name] = await whileWriting(target, charge, () =>
        autocannon(target, request, 64, { settled: true }),
      );
    }
    say(`writes with ${largest.bills.toLocaleString('en')} bills stored`);
    results.writes_full = await measureWrites(target, writeRunCharge, yearBefore(new Date(Date.UTC(2096, 0, 1))));
    // Updates on the first half of the sampled bills, cancellations (each of a bill of its own) on the second.
    const ids = loader.samples.ids.slice(3);
    const half = Math.floor(ids.length / 2);
    const urls = (list: number[]) => list.map((id) => `${target.gatewayUrl}/lab_bills/${id}`);
    results.single = {
      'PUT /lab_bills/{id}': await probe(
        target,
        { method: 'PUT', path: `/lab_bills/${ids[0]}`, body: { notes: 'bench' } },
        { ...PROBE, urls: urls(ids.slice(0, half)) },
      ),
      'DELETE /lab_bills/{id}': await probe(
        target,
        { method: 'DELETE', path: `/lab_bills/${ids[half]}` },
        { ...PROBE, maxRequests: ids.length - half, urls: urls(ids.slice(half)) },
      ),
    };
    // Last of the bills' figures: it adds a day of bills dated today to the measured branch.
    say(`payments and the day-end with ${largest.bills.toLocaleString('en')} bills stored`);
    results.money = await measureMoney(target, loader);
    say('sessions: a year for 50 doctors');
    results.sessions = await measureSessions(target);
    results.bill_numbers = await checkNumbers(target);
    results.summaries_exact = await checkSummaries(target, loader);
    results.inRatio = readRequests(loader)
      .filter((r) => r.inRatio)
      .map((r) => r.name);
  } finally {
    await loader.close();
  }
  return results;
}
