/**
 * Issue 25's money at scale: POST /lab_bills/{id}/payments at 64 connections
 * (split payments of bills of another branch, one in two completing its
 * bill), and the day-end report of a day of about 1,370 bills of the
 * measured branch (as many as the data set's days hold) right after a
 * payment that day, so that no cached figure can answer it.
 */
import { ClinicClock, machineTimeZone } from '@clinic/service-kit/internal';
import { MEASURED_BRANCH, OTHER_BRANCHES, type BillLoader } from './dataset';
import { httpLoad, probe, say, type Request } from './measure';
import { medianByRate, type LatencyStats } from './stats';
import { api, type Target } from './target';
import { cpuByProcess, stackProcesses, withCpuPerRequest } from './process-cpu';
import type { WriteFigures } from './stats';

/** The clinic's today on the bench's own stack (CLINIC_TZ unset: the machine's zone): the day payments move money on. */
const today = () => new ClinicClock(machineTimeZone()).today();
const ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 3);
/** Bills to pay, of 2.00 each, paid 1.00 at a time: each run's share holds more payments than it can make. */
const BILLS_TO_PAY = 5_000 * (ROUNDS + 1);
/** Bills of the day the day-end report is read of, as many as the data set's days hold. */
const DAY_BILLS = 1_370;

/** Payments per second, with the CPU ms each process of the stack spent per payment in the median run. */
type PaymentFigures = WriteFigures & { cpu?: Record<string, number> };

export interface MoneyFigures {
  payments: PaymentFigures;
  bills_to_pay: number;
  day_end_after_payment: LatencyStats;
  day_bills: number;
  day_payments: number;
}

/** Calls `each` for 0..count-1, `concurrency` at a time. */
async function inParallel(count: number, concurrency: number, each: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await each(next++);
    }),
  );
}

async function measurePayments(target: Target, loader: BillLoader): Promise<PaymentFigures> {
  const store = OTHER_BRANCHES[1]!;
  say(`  ${BILLS_TO_PAY.toLocaleString('en')} Pending bills of 2.00 to pay, in branch ${store}`);
  const ids = await loader.pendingBills(BILLS_TO_PAY, store, loader.dates[200]!, 200);
  const urls = ids.map((id) => `${target.gatewayUrl}/lab_bills/${id}/payments`);
  const pay: Request = { method: 'POST', path: `/lab_bills/${ids[0]}/payments` };
  const bodies = [
    { amount: 1, method: 'Cash', received_amount: 1 },
    { amount: 1, method: 'Card', reference: 'bench' },
    { amount: 1, method: 'Online' },
  ];
  say('  POST /lab_bills/{id}/payments at 64 connections');
  // Each run pays bills of its own, each url in turn: a bill is paid once in every pass over its run's urls and
  // completed on the second pass; a third pass (more than 2 payments per bill) would be refused as more than due.
  const share = Math.floor(urls.length / (ROUNDS + 1));
  const urlsOf = (run: number) => urls.slice(run * share, (run + 1) * share);
  await httpLoad(target, pay, bodies, 64, 3_000, urlsOf(0));
  // What each process spends per payment shows which one the rate waits on (two cores hold 2,000 ms of CPU a second).
  const processes = target.stack ? stackProcesses(target.stack) : {};
  const runs: Array<LatencyStats & { cpu: Record<string, number> }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    runs.push(
      await withCpuPerRequest(processes, () => httpLoad(target, pay, bodies, 64, undefined, urlsOf(round + 1))),
    );
  }
  return { ...medianByRate(runs), runs: runs.map((run) => run.rps) };
}

async function measureDayEnd(target: Target): Promise<Omit<MoneyFigures, 'payments' | 'bills_to_pay'>> {
  const date = today();
  const charge = (await api(target, 'GET', `/hospital_charges?store_id=${MEASURED_BRANCH}&status=Active`)).charges[0];
  say(
    `  ${DAY_BILLS.toLocaleString('en')} bills of today in branch ${MEASURED_BRANCH}, four in five Paid (each its payment)`,
  );
  const pending: number[] = [];
  await inParallel(DAY_BILLS, 16, async (i) => {
    const paid = i % 5 !== 0;
    const { bill_id } = await api(target, 'POST', '/lab_bills', {
      patient_name: `Day Patient ${i}`,
      patient_contact: '0770000000',
      bill_date: date,
      payment_method: ['Cash', 'Card', 'Online'][i % 3],
      payment_status: paid ? 'Paid' : 'Pending',
      store_id: MEASURED_BRANCH,
      items: [{ charge_id: charge.id, charge_name: charge.charge_name, unit_price: charge.amount, qty: 2 }],
    });
    if (!paid) pending.push(bill_id);
  });
  say('  GET /lab_bills/day_end of today right after a payment of one of its Pending bills');
  const payments: Request[] = pending.map((id) => ({
    method: 'POST',
    path: `/lab_bills/${id}/payments`,
    body: { amount: 1, method: 'Cash' },
  }));
  const read: Request = {
    method: 'GET',
    path: '/lab_bills/day_end',
    query: { store_id: String(MEASURED_BRANCH), date },
  };
  const figures = await probe(target, read, { durationMs: 4_000, maxRequests: pending.length, before: payments });
  return { day_end_after_payment: figures, day_bills: DAY_BILLS, day_payments: DAY_BILLS - pending.length };
}

export async function measureMoney(target: Target, loader: BillLoader): Promise<MoneyFigures> {
  return {
    ...(await measureDayEnd(target)),
    payments: await measurePayments(target, loader),
    bills_to_pay: BILLS_TO_PAY,
  };
}

/** The report's lines of the money figures. */
export function moneyLines(money: MoneyFigures, bills: number, fmt: (s: LatencyStats) => string): string[] {
  return [
    '',
    `Money (issue 25), with ${bills.toLocaleString('en')} bills stored (req/s, p50, p90, p99, errors):`,
    `  POST /lab_bills/{id}/payments, 64 connections   ${fmt(money.payments)}   each round's payments/s: ${money.payments.runs.join(' ')}`,
    ...cpuLine(money.payments.cpu),
    `  GET /lab_bills/day_end after a payment, 1 conn   ${fmt(money.day_end_after_payment)}   (a day of ${money.day_bills} bills, ${money.day_payments} paid at creation)`,
  ];
}

/** The CPU a payment cost each process (absent for a stack the bench did not start). */
function cpuLine(cpu: Record<string, number> | undefined): string[] {
  if (!cpu || Object.keys(cpu).length === 0) return [];
  return [`    CPU ms per payment (median round): ${cpuByProcess(cpu)}`];
}
