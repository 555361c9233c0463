/**
 * Prometheus metrics, scraped by a real Prometheus server (Debian's package)
 * from every process of a running stack: the gateway and each service replica
 * (billing twice). Queried through Prometheus's HTTP API with PromQL.
 */
import { readFileSync } from 'node:fs';
import { startTestStack, eventually, type TestStack } from './harness';
import { seedMainWithCbc } from './fixtures';
import { startPrometheus, type Prometheus } from './observability';

let t: TestStack;
let prometheus: Prometheus;
let chargeId: number;
const BILLS = 12;

beforeAll(async () => {
  t = await startTestStack({ replicas: { billing: 2 } });
  prometheus = await startPrometheus(t.stack.metricsTargets());
  chargeId = await seedMainWithCbc(t);
}, 120_000);
afterAll(async () => {
  await prometheus?.stop();
  await t?.stop();
});

/** The single value of an instant query (the sum over series), once it is there and satisfies `until`. */
async function value(promql: string, until: (v: number) => boolean = () => true): Promise<number> {
  return eventually(
    async () => {
      const result = await prometheus.query(promql);
      if (result.length === 0) return undefined;
      const v = Number(result[0]!.value[1]);
      return until(v) ? v : undefined;
    },
    20_000,
    250,
  );
}

it('scrapes every process: the gateway, both billing replicas, catalogue and sessions are up', async () => {
  expect(
    t.stack
      .metricsTargets()
      .map((target) => target.replica)
      .sort(),
  ).toEqual(['billing-1', 'billing-2', 'catalogue-1', 'ferretdb', 'gateway', 'nats-n1', 'sessions-1']);
  const up = await eventually(
    async () => {
      const result = await prometheus.query('up');
      return result.length === 7 && result.every((r) => r.value[1] === '1') ? result : undefined;
    },
    20_000,
    250,
  );
  expect(up.map((r) => r.metric.replica).sort()).toEqual([
    'billing-1',
    'billing-2',
    'catalogue-1',
    'ferretdb',
    'gateway',
    'nats-n1',
    'sessions-1',
  ]);
  for (const job of ['gateway', 'billing', 'catalogue', 'sessions']) {
    // Node's default process metrics from every process.
    expect(await value(`count(process_cpu_seconds_total{job="${job}"})`)).toBe(job === 'billing' ? 2 : 1);
    expect(await value(`count(nodejs_eventloop_lag_seconds{job="${job}"})`)).toBe(job === 'billing' ? 2 : 1);
  }
});

/** The stack's own processes (not the servers it scrapes too). */
const processes = () => t.stack.metricsTargets().filter((target) => !['nats', 'database'].includes(target.job));

it("answers each process's readiness at /health on its metrics port (what compose's healthchecks ask)", async () => {
  for (const target of processes()) {
    const response = await fetch(`http://${target.address}/health`);
    expect({ replica: target.replica, status: response.status, body: await response.json() }).toEqual({
      replica: target.replica,
      status: 200,
      body: { status: 'ok' },
    });
  }
});

it("scrapes NATS's monitoring (JetStream's storage, each stream and consumer) and the database's own metrics", async () => {
  // The storage alert's expression (deploy/prometheus/alerts.yml) over the real series: a share of the limit.
  const used = await value(
    'max by (instance) (gnatsd_varz_jetstream_stats_storage) / clamp_min(max by (instance) (gnatsd_varz_jetstream_config_max_storage), 1)',
    (v) => v > 0,
  );
  expect(used).toBeLessThan(0.85);
  expect(await value('count(jetstream_stream_total_messages{stream_name="BILLING_EVENTS"})')).toBe(1);
  expect(
    await value('count(jetstream_consumer_num_pending{stream_name="HOSPITAL_REF",consumer_name="billing-ref"})'),
  ).toBe(1);
  expect(await value('sum(gnatsd_varz_connections{job="nats"})', (v) => v >= 5)).toBeGreaterThanOrEqual(5);
  // FerretDB's own: its connection pools and the commands it answered.
  expect(await value('count(ferretdb_sqlite_pool_databases{job="database"})')).toBe(1);
  expect(await value('sum(ferretdb_client_requests_total{job="database"})', (v) => v > 0)).toBeGreaterThan(0);
});

it('gives the request rate of POST /lab_bills and counts every bill, its NATS hops and database commands', async () => {
  const create = (i: number) =>
    t.post('/lab_bills', {
      patient_name: 'P',
      patient_contact: 'C',
      bill_date: `2094-01-${String((i % 5) + 1).padStart(2, '0')}`,
      payment_method: 'Cash',
      store_id: 1,
      items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    });
  // A rate needs two samples of the series: one bill, scraped, then the others.
  expect((await create(0)).status).toBe(201);
  expect(
    await value('sum(clinic_http_requests_total{route="/lab_bills",method="POST",status="201"})', (v) => v === 1),
  ).toBe(1);
  const results = await Promise.all(Array.from({ length: BILLS - 1 }, (_, i) => create(i + 1)));
  expect(results.map((r) => r.status)).toEqual(Array(BILLS - 1).fill(201));

  const rate = await value(
    'sum(rate(clinic_http_requests_total{job="gateway",route="/lab_bills",method="POST"}[1m]))',
    (v) => v > 0,
  );
  expect(rate).toBeGreaterThan(0);
  // Exact counts: HTTP by route, method and status; the services' side; the bills themselves over both replicas.
  for (const query of [
    'sum(clinic_http_requests_total{route="/lab_bills",method="POST",status="201"})',
    'sum(clinic_http_request_duration_seconds_count{route="/lab_bills",method="POST"})',
    'sum(clinic_nats_requests_total{job="gateway",subject="billing.bill.create",outcome="ok"})',
    'sum(clinic_nats_messages_handled_total{job="billing",subject="billing.bill.create",status="201"})',
    'sum(clinic_nats_message_duration_seconds_count{job="billing",subject="billing.bill.create"})',
    'sum(clinic_nats_requests_total{job="billing",subject="catalogue.charge.check",outcome="ok"})',
    'sum(clinic_nats_messages_handled_total{job="catalogue",subject="catalogue.charge.check",status="200"})',
    'sum(clinic_bills_created_total)',
  ]) {
    // The query in the compared object, so that a failure names it.
    expect({ query, value: await value(query, (v) => v >= BILLS) }).toEqual({ query, value: BILLS });
  }
  // Both replicas answered some (one queue group).
  const perReplica = await prometheus.query(
    'clinic_nats_messages_handled_total{job="billing",subject="billing.bill.create"}',
  );
  expect(perReplica.map((r) => r.metric.replica).sort()).toEqual(['billing-1', 'billing-2']);
  expect(
    await value(
      'sum(clinic_db_command_duration_seconds_count{job="billing",command="insert",outcome="ok"})',
      (v) => v > 0,
    ),
  ).toBeGreaterThan(0);
  expect(
    await value(
      'histogram_quantile(0.9, sum by (le) (rate(clinic_http_request_duration_seconds_bucket{route="/lab_bills"}[1m])))',
      (v) => v > 0,
    ),
  ).toBeGreaterThan(0);
});

it('reports the outbox backlog, the reference-stream lag, the breaker and requests in flight', async () => {
  // The events of the bills above are published: nothing left in the outbox.
  expect(await value('sum(clinic_outbox_stored_entries{job="billing"})', (v) => v === 0)).toBe(0);
  expect(await value('count(clinic_outbox_queued_events)')).toBe(4);
  // The seeded store is applied: no lag.
  expect(await value('max(clinic_reference_pending_messages{job="billing"})', (v) => v === 0)).toBe(0);
  expect(await value('count(clinic_reference_pending_messages)')).toBe(4);
  expect(await value('sum(clinic_db_breaker_open)')).toBe(0);
  expect(await value('count(clinic_db_breaker_open)')).toBe(4);
  expect(await value('clinic_http_requests_in_flight{job="gateway"}')).toBe(0);
});

it('traces nothing without the OTEL_* settings: no trace id on any log line', () => {
  for (const target of processes()) {
    const lines = readFileSync(`${t.stack.logDir}/${target.replica}.log`, 'utf8').split('\n').filter(Boolean);
    expect(lines.filter((line) => line.includes('"correlation_id"')).length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes('trace_id'))).toEqual([]);
  }
});

it('counts NATS request outcomes 503 and 504', async () => {
  // No responder: the catalogue replica is stopped.
  await t.stack.replica('catalogue').stop();
  expect((await t.get('/hospital_charges?store_id=1')).status).toBe(503);
  expect(
    await value(
      'sum(clinic_nats_requests_total{job="gateway",subject="catalogue.charge.list",outcome="503"})',
      (v) => v >= 1,
    ),
  ).toBe(1);
  expect(
    await value('sum(clinic_http_requests_total{route="/hospital_charges",method="GET",status="503"})', (v) => v >= 1),
  ).toBe(1);
  // No reply in time: the sessions replica is paused, so its subscription stays but nothing answers.
  const sessions = t.stack.replica('sessions');
  try {
    await sessions.pause();
    expect((await t.get('/all_sessions')).status).toBe(504);
  } finally {
    sessions.signal('SIGCONT');
  }
  expect(
    await value(
      'sum(clinic_nats_requests_total{job="gateway",subject="sessions.session.list",outcome="504"})',
      (v) => v >= 1,
    ),
  ).toBe(1);
}, 60_000);
