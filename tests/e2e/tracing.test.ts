/**
 * OpenTelemetry traces across HTTP, NATS and the database, exported over OTLP
 * to a real OpenTelemetry Collector (tools/otel-collector) that the test
 * starts, and read back from what it received.
 */
import { readFileSync } from 'node:fs';
import { EventReader } from './events';
import { eventually, startTestStack, type TestStack } from './harness';
import { seedMainWithCbc } from './fixtures';
import { startOtlpReceiver, type OtlpReceiver, type OtlpSpan } from './observability';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;

let receiver: OtlpReceiver;
let t: TestStack;
let events: EventReader;
let chargeId: number;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // Every request traced (the default is one in a hundred; the last test here checks it).
  t = await startTestStack({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    },
  });
  chargeId = await seedMainWithCbc(t);
  events = await EventReader.start(await t.nats('hospital'), 'BILLING_EVENTS');
}, 120_000);
afterAll(async () => {
  events?.stop();
  await t?.stop();
  await receiver?.stop();
});

const bill = (day: number) => ({
  patient_name: 'P',
  patient_contact: 'C',
  bill_date: `2094-02-${String(day).padStart(2, '0')}`,
  payment_method: 'Cash',
  store_id: 1,
  items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
});

/** The JSON log lines of a process that belong to one request. */
function logLines(processName: string, correlationId: string): any[] {
  return readFileSync(`${t.stack.logDir}/${processName}.log`, 'utf8')
    .split('\n')
    .filter((line) => line.includes(correlationId))
    .map((line) => JSON.parse(line));
}

/** The lines of a request, once its last one (`msg`) is written: a process logs a request just after answering it. */
async function requestLines(processName: string, correlationId: string, msg: string): Promise<any[]> {
  return eventually(async () => {
    const lines = logLines(processName, correlationId);
    return lines.some((line) => line.msg === msg) ? lines : undefined;
  });
}

/** The spans of a trace, once `complete` says they have all arrived. */
async function traceOf(traceId: string, complete: (spans: OtlpSpan[]) => boolean): Promise<OtlpSpan[]> {
  return eventually(
    async () => {
      const spans = receiver.spans().filter((s) => s.traceId === traceId);
      return complete(spans) ? spans : undefined;
    },
    20_000,
    200,
  );
}

const one = (spans: OtlpSpan[], service: string, name: string): OtlpSpan => {
  const found = spans.filter((s) => s.service === service && s.name === name);
  if (found.length !== 1)
    throw new Error(
      `expected one ${service} span "${name}", got ${found.length}: ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`,
    );
  return found[0]!;
};
const isDatabaseSpan = (s: OtlpSpan) =>
  s.attributes['db.system'] === 'mongodb' || s.attributes['db.system.name'] === 'mongodb';
/**
 * Each process exports its spans on its own, a span once it has ended (a parent after its children): the trace
 * is all there once every process's last span of the request is.
 */
const EXPECTED = [
  'gateway:POST /lab_bills',
  'billing:process billing.bill.create',
  'billing:publish billing.bill.created',
  'catalogue:process catalogue.charge.check',
];
const complete = (spans: OtlpSpan[]) => EXPECTED.every((name) => spans.some((s) => `${s.service}:${s.name}` === name));

it('follows one POST /lab_bills through the gateway, billing, its charge check to catalogue, the database and the event', async () => {
  const res = await t.post('/lab_bills', bill(1));
  expect(res.status).toBe(201);
  const correlationId = res.headers.get('x-correlation-id')!;

  // The request's log lines carry its trace id, in the gateway and in the services.
  const [gatewayLine] = await requestLines('gateway', correlationId, 'request completed');
  const traceId: string = gatewayLine.trace_id;
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  const billingLines = await requestLines('billing-1', correlationId, 'request handled');
  for (const line of billingLines) expect(line.trace_id).toBe(traceId);
  for (const line of await requestLines('catalogue-1', correlationId, 'request handled'))
    expect(line.trace_id).toBe(traceId);

  const spans = await traceOf(traceId, complete);
  // One trace: every span but the root has its parent in it.
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  expect(roots.map((s) => `${s.service}:${s.name}`)).toEqual(['gateway:POST /lab_bills']);
  expect(roots[0]!.kind).toBe(SERVER);
  expect(roots[0]!.attributes).toMatchObject({
    'http.request.method': 'POST',
    'http.route': '/lab_bills',
    'http.response.status_code': 201,
  });

  // Gateway -> NATS -> billing.
  const send = one(spans, 'gateway', 'send billing.bill.create');
  expect(send.kind).toBe(CLIENT);
  expect(send.attributes['messaging.system']).toBe('nats');
  const billing = one(spans, 'billing', 'process billing.bill.create');
  expect(billing.kind).toBe(SERVER);
  expect(billing.parentSpanId).toBe(send.spanId);
  expect(billing.attributes['clinic.reply.status']).toBe(201);
  // Billing -> NATS -> catalogue: the charge check, a second hop.
  const check = one(spans, 'billing', 'send catalogue.charge.check');
  expect(check.parentSpanId).toBe(billing.spanId);
  const catalogue = one(spans, 'catalogue', 'process catalogue.charge.check');
  expect(catalogue.parentSpanId).toBe(check.spanId);
  // Database calls of both services.
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const ancestors = (s: OtlpSpan): string[] =>
    s.parentSpanId && byId.has(s.parentSpanId) ? [s.parentSpanId, ...ancestors(byId.get(s.parentSpanId)!)] : [];
  const billingDb = spans.filter(
    (s) => s.service === 'billing' && isDatabaseSpan(s) && ancestors(s).includes(billing.spanId),
  );
  expect(billingDb.map((s) => s.name)).toEqual(expect.arrayContaining([expect.stringMatching(/insert/)]));
  expect(
    spans.filter((s) => s.service === 'catalogue' && isDatabaseSpan(s) && ancestors(s).includes(catalogue.spanId))
      .length,
  ).toBeGreaterThan(0);
  // The event's publication, in the same trace, and its context in the event's headers.
  const publish = one(spans, 'billing', 'publish billing.bill.created');
  expect(publish.kind).toBe(PRODUCER);
  expect(ancestors(publish)).toContain(billing.spanId);
  const [received] = await events.waitFor((e) => e.event.data.bill.id === res.body.bill_id);
  expect(received!.traceparent).toBe(`00-${traceId}-${publish.spanId}-01`);
});

it('continues the trace of a client that sends traceparent', async () => {
  const clientTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const clientSpanId = '00f067aa0ba902b7';
  const res = await t.post('/lab_bills', bill(2), {
    headers: { traceparent: `00-${clientTraceId}-${clientSpanId}-01` },
  });
  expect(res.status).toBe(201);
  const spans = await traceOf(clientTraceId, complete);
  const root = one(spans, 'gateway', 'POST /lab_bills');
  expect(root.parentSpanId).toBe(clientSpanId);
  expect((await requestLines('gateway', res.headers.get('x-correlation-id')!, 'request completed'))[0].trace_id).toBe(
    clientTraceId,
  );
});

it("keeps a caller's decision not to sample: no process makes a span of it, no log line names it", async () => {
  const unsampledTraceId = '5cf92f3577b34da6a3ce929d0e0e4737';
  const res = await t.post('/lab_bills', bill(3), {
    headers: { traceparent: `00-${unsampledTraceId}-00f067aa0ba902b8-00` },
  });
  expect(res.status).toBe(201);
  // A sampled request sent after it has arrived whole: the unsampled one had its chance to be exported too.
  const sampledTraceId = '6cf92f3577b34da6a3ce929d0e0e4738';
  await t.post('/lab_bills', bill(4), { headers: { traceparent: `00-${sampledTraceId}-00f067aa0ba902b9-01` } });
  await traceOf(sampledTraceId, complete);
  expect(receiver.spans().filter((s) => s.traceId === unsampledTraceId)).toEqual([]);
  const correlationId = res.headers.get('x-correlation-id')!;
  const lines = [
    ...(await requestLines('gateway', correlationId, 'request completed')),
    ...logLines('billing-1', correlationId),
  ];
  expect(lines.length).toBeGreaterThan(1);
  expect(lines.filter((line) => line.trace_id)).toEqual([]);
});

describe('the default sampler', () => {
  let sampled: TestStack;
  beforeAll(async () => {
    sampled = await startTestStack({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
    });
  }, 120_000);
  afterAll(async () => sampled?.stop());

  it('traces about one request in a hundred that comes without a traceparent, and every one whose caller sampled it', async () => {
    const before = new Set(receiver.spans().map((s) => s.traceId));
    for (let i = 0; i < 1_000; i++) expect((await sampled.get('/health')).status).toBe(200);
    const callerSampled = '7cf92f3577b34da6a3ce929d0e0e4739';
    await sampled.get('/health', { headers: { traceparent: `00-${callerSampled}-00f067aa0ba902ba-01` } });
    const roots = await eventually(async () => {
      const spans = receiver.spans().filter((s) => !before.has(s.traceId) && s.service === 'gateway');
      return spans.some((s) => s.traceId === callerSampled) ? spans : undefined;
    });
    const traced = new Set(roots.filter((s) => s.traceId !== callerSampled).map((s) => s.traceId)).size;
    // A request the gateway did not trace is traced nowhere: every new trace starts at a gateway request span.
    const fresh = receiver.spans().filter((s) => !before.has(s.traceId));
    const started = new Set(
      fresh.filter((s) => s.service === 'gateway' && s.name === 'GET /health').map((s) => s.traceId),
    );
    expect(fresh.filter((s) => !started.has(s.traceId))).toEqual([]);
    // Binomial(1000, 0.01): mean 10; none has a chance of 4 in 100,000, and 25 lies almost five standard deviations
    // (3.1) away, where one in ten (mean 100) never comes.
    expect(traced).toBeGreaterThan(0);
    expect(traced).toBeLessThan(25);
  });
});
