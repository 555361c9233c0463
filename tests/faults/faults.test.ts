/**
 * Faults under a steady load of bill creation through the gateway: a billing
 * replica killed with SIGKILL, NATS restarted, the database stopped, a service
 * stopped while reference records are published. After each: every bill the
 * API confirmed is stored and readable, no number is used twice or skipped,
 * no logical request created two bills, every bill has its created event,
 * and every change of a bill (its creation, and updates sent alongside the
 * load) has exactly one history entry: none missing, none without its change.
 * Right after each fault the money's day is closed: it must count exactly the
 * cash of the payments and refunds acknowledged that day.
 * The figures are printed and written to bench-results/faults-latest.json.
 */
import { refSubject, SessionsSubjects } from '@clinic/contracts';
import { eventually, sleep, startTestStack, type TestStack } from '../e2e/harness';
import { billLoad, expectHealthy, MONEY_SUB, verify, writeReports } from './checks';
import { closeTheDay, type CloseFigures } from './day-close-check';

let t: TestStack;
let chargeId: number;
const reports: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestStack({ replicas: { billing: 2 }, env: { REQUEST_TIMEOUT_MS: '3000' } });
  await t.seed({ stores: [{ id: 1, name: 'Main', status: 'active' }] });
  chargeId = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 }))
    .body.charge_id;
  // Three fault files start their stacks at once; on a shared 2-core machine that can take over a minute.
}, 120_000);

afterAll(async () => {
  await t?.stop();
  writeReports('faults-latest.json', reports);
});

const load = (billDate: string) => billLoad(t, chargeId, billDate);

/** The close's figures join the fault's report: what it counted must be what was acknowledged. */
function expectCounted(report: Record<string, unknown>, close: CloseFigures): void {
  Object.assign(report, close);
  expect(close).toMatchObject({ close_difference_cents: 0 });
  expect(close.close_acknowledged_cents).not.toBe(0);
}

/**
 * The load of bills dated `date`, `fault` 2 s into it, the load kept on for `afterMs` once the fault has
 * ended (recovery is measured from then), and then the day closed and the run verified and reported as `name`.
 * The day is closed before, say, a survivor's sweeper has settled what a killed replica left.
 */
async function faultUnderLoad(date: string, name: string, fault: () => void | Promise<void>, afterMs: number) {
  const run = load(date);
  run.start();
  await sleep(2_000);
  await fault();
  const faultEndedAt = run.now();
  await sleep(afterMs);
  await run.stop();
  const close = await closeTheDay(t, run.money.ops, MONEY_SUB);
  const report = await verify(t, reports, name, run, date, faultEndedAt);
  expectCounted(report, close);
  expectHealthy(t, report);
  return { run, report };
}

it('kill -9 one billing replica of two: the other keeps answering', async () => {
  const kill = () => t.stack.replica('billing', 0).signal('SIGKILL');
  const { report } = await faultUnderLoad('2032-01-01', 'kill -9 billing replica 1 of 2', kill, 5_000);
  // Requests in flight to the killed replica end in 503/504, never in a hang.
  for (const status of Object.keys(report.failed_by_status)) expect(['503', '504']).toContain(status);
  t.stack.replica('billing', 0).start();
  await t.stack.waitHealthy(30_000);
});

it('restart NATS: everything reconnects by itself and no recorded event is lost', async () => {
  const restart = async () => {
    await t.stack.infra.nats!.stop();
    await sleep(1_500);
    await t.stack.infra.startNats();
  };
  const { report } = await faultUnderLoad('2032-01-02', 'restart NATS (down 1.5 s)', restart, 6_000);
  for (const status of Object.keys(report.failed_by_status)) expect(['503', '504', 'network']).toContain(status);
  expect(report.recovery_ms).toBeLessThan(10_000);
});

it('stop the database for a few seconds: 500s in the envelope, then recovery by itself', async () => {
  const outage = async () => {
    await t.stack.infra.db!.stop();
    await sleep(3_000);
    await t.stack.infra.startDb();
  };
  const { run, report } = await faultUnderLoad('2032-01-03', 'stop the database (down 3 s)', outage, 8_000);
  expect(report.failed_by_status['500']).toBeGreaterThan(0);
  expect(report.recovery_ms).toBeLessThan(10_000);
  for (const status of Object.keys(report.failed_by_status)) expect(['500', '503', '504']).toContain(status);
  const bodies = run.bills
    .flatMap((b) => b.attempts)
    .filter((a) => a.status === 500)
    .map((a) => a.body);
  for (const body of bodies)
    expect(body).toEqual({ success: false, error: 'Internal server error.', code: 'INTERNAL_ERROR' });
});

it('stop a service while reference records are published: it catches up after its restart', async () => {
  const sessions = t.stack.replica('sessions');
  await sessions.stop();
  const nc = await t.nats('hospital');
  const js = nc.jetstream();
  const stoppedAt = Date.now();
  let last = 0;
  for (let id = 1; id <= 200; id++) {
    const ack = await js.publish(
      refSubject('doctor'),
      JSON.stringify({
        id: 5000 + id,
        name: `Dr. Late ${id}`,
        reg_no: `L${id}`,
        specialization: 'GP',
        channeling_fee: 100,
        status: 'Active',
        store_id: 1,
        schedule: [{ day: 'Monday', session_no: 1, start_time: '08:00', end_time: '09:00', max_patients: null }],
      }),
    );
    last = ack.seq;
  }
  const restartedAt = Date.now();
  sessions.start();
  await t.stack.waitHealthy(30_000);
  const ops = await t.nats('ops');
  await eventually(
    async () => {
      const reply = JSON.parse(
        new TextDecoder().decode((await ops.request(SessionsSubjects.refStatus, '{}', { timeout: 2000 })).data),
      );
      return reply.body.applied_seq >= last ? true : undefined;
    },
    30_000,
    100,
  );
  const caughtUpAt = Date.now();
  const preview = await t.get('/preview_auto_sessions?doctor_id=5200&month=2099-02');
  expect(preview.body.preview[0]).toMatchObject({ doctor_name: 'Dr. Late 200' });
  reports.push({
    fault: 'stop sessions while 200 reference records are published',
    attempts: 0,
    succeeded: 0,
    failed_by_status: {},
    hangs: 0,
    bills_lost: 0,
    duplicates: 0,
    gaps: 0,
    unconfirmed_but_stored: 0,
    events_missing: 0,
    bill_changes: 0,
    history_missing: 0,
    history_without_change: 0,
    updates_lost: 0,
    records_published_while_down: 200,
    down_ms: restartedAt - stoppedAt,
    recovery_ms: caughtUpAt - restartedAt,
  });
});
