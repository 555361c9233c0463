/**
 * What the gateway answers when its service does not answer as it should,
 * over a real NATS server: no responder (503), too late (504), a reply that
 * is not one (500, with the cause on the request's log line), and replies
 * larger than one NATS message, whole or broken; and a request too large
 * for one (413), as docs/api.md states.
 */
import type { FastifyInstance } from 'fastify';
import type { Msg } from 'nats';
import { GATEWAY_MESSAGES, GENERIC_ERROR_MESSAGE, HeaderNames, Limits } from '@clinic/contracts';
import { respondInChunks } from '@clinic/service-kit/internal';
import { ask, fileGateway, replyWith, respondRaw } from './gateway-harness';

/** Its gateway waits up to 5 s for a service, as by default; its stubs answer nothing unless told. */
const t = fileGateway('gateway-unanswered', {
  env: { BODY_LIMIT_BYTES: String(4 * 1024 * 1024) },
  answer: () => undefined,
});
const token = t.token('cashier');
/** Waits 1 s, for the answers that come too late or never. */
let impatient: FastifyInstance;

beforeAll(async () => {
  impatient = await t.gateway({ REQUEST_TIMEOUT_MS: '1000' });
});

const failure = (code: string, error: string) => ({ success: false, error, code });

/** The log line of the request with this correlation id. */
const logLineOf = (correlationId: string) =>
  t.logLines().find((line) => line.correlation_id === correlationId && line.msg === 'request completed');

it('answers 503 SERVICE_UNAVAILABLE when no instance of the service listens', async () => {
  const res = await ask(t.app, 'GET', '/all_sessions', { token, headers: { 'x-correlation-id': 'corr-503' } });
  expect([res.status, res.json]).toEqual([503, failure('SERVICE_UNAVAILABLE', GATEWAY_MESSAGES.unavailable)]);
  expect(res.headers['x-correlation-id']).toBe('corr-503');
  expect(logLineOf('corr-503')).toMatchObject({ status: 503, cause: 'no responder', subject: 'sessions.session.list' });
});

it('answers 504 SERVICE_TIMEOUT when the service does not answer in time, and drops its late answer', async () => {
  const held: Msg[] = [];
  t.catalogue.answer = (msg) => held.push(msg);
  const late = await ask(impatient, 'GET', '/hospital_charges/1', { token });
  expect([late.status, late.json]).toEqual([504, failure('SERVICE_TIMEOUT', GATEWAY_MESSAGES.timeout)]);
  replyWith(held[0]!, { status: 200, body: { success: true, charge: { id: 1 } } });
  t.catalogue.answer = (msg) => replyWith(msg, { status: 200, body: { success: true, charge: { id: 2 } } });
  const next = await ask(impatient, 'GET', '/hospital_charges/2', { token });
  expect([next.status, next.json]).toEqual([200, { success: true, charge: { id: 2 } }]);
});

it('answers 500 INTERNAL_ERROR with the generic text for a reply that is not one, the cause on its log line', async () => {
  const broken = [
    'not json',
    '{"status":200,"body":{"success":',
    '{"success":true}',
    '[1]',
    'null',
    // The reply's own closing brace missing: the body's last brace must not stand in for it.
    '{"status":200,"body":{"success":true,"charge":{"id":1}}',
  ];
  for (const [i, reply] of broken.entries()) {
    t.catalogue.answer = (msg) => respondRaw(msg, reply);
    const correlationId = `corr-500-${i}`;
    const res = await ask(t.app, 'GET', '/hospital_charges/1', {
      token,
      headers: { 'x-correlation-id': correlationId },
    });
    expect([res.status, res.json]).toEqual([500, failure('INTERNAL_ERROR', GENERIC_ERROR_MESSAGE)]);
    expect(res.body).not.toContain(reply);
    const line = logLineOf(correlationId);
    expect(line).toMatchObject({ status: 500, level: 'error' });
    expect(line?.err).toMatchObject({ message: expect.any(String) });
  }
});

describe('a reply larger than one NATS message', () => {
  /** A list reply of about `bytes` bytes. */
  const largeList = (bytes: number) => {
    const charges = Array.from({ length: Math.ceil(bytes / 100) }, (_, id) => ({ id, charge_name: 'x'.repeat(80) }));
    return { status: 200, body: { success: true, charges, count: charges.length } };
  };
  const maxPayload = () => t.catalogue.nc.info!.max_payload;

  it('is answered whole, however many messages it took', async () => {
    const reply = largeList(2.5 * maxPayload());
    let chunks = 0;
    t.catalogue.answer = (msg) => {
      const encoded = new TextEncoder().encode(JSON.stringify(reply));
      chunks = respondInChunks(msg, encoded, 'corr', Limits.replyChunksMax, maxPayload());
    };
    const res = await ask(t.app, 'GET', '/hospital_charges?store_id=1', { token });
    expect(chunks).toBe(3);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(reply.body);
  });

  /** Sends the first pieces of a reply cut in `count`, in order, the k-th marked as chunk `labels[k]`. */
  const chunksOf = (msg: Msg, count: number, labels: number[]) => {
    const text = JSON.stringify(largeList(count * 2_000));
    const size = Math.ceil(text.length / count);
    for (const [k, label] of labels.entries())
      respondRaw(msg, text.slice(k * size, (k + 1) * size), {
        [HeaderNames.chunkCount]: String(count),
        [HeaderNames.chunkIndex]: String(label),
      });
  };

  it('answers 504 when its messages stop coming before the last', async () => {
    t.catalogue.answer = (msg) => chunksOf(msg, 3, [0, 1]);
    const res = await ask(impatient, 'GET', '/hospital_charges?store_id=1', { token });
    expect([res.status, res.json]).toEqual([504, failure('SERVICE_TIMEOUT', GATEWAY_MESSAGES.timeout)]);
  });

  it('answers 500 when its messages say they come out of order, though their bytes would join', async () => {
    t.catalogue.answer = (msg) => chunksOf(msg, 3, [1, 0, 2]);
    const res = await ask(t.app, 'GET', '/hospital_charges?store_id=1', { token });
    expect([res.status, res.json]).toEqual([500, failure('INTERNAL_ERROR', GENERIC_ERROR_MESSAGE)]);
  });
});

it('answers 413 BODY_TOO_LARGE, unsent, for a body within its limit that one NATS message cannot carry', async () => {
  const notes = 'n'.repeat(t.catalogue.nc.info!.max_payload);
  const res = await ask(t.app, 'POST', '/hospital_charges', { token, body: { charge_name: 'CBC', notes } });
  expect([res.status, res.json]).toEqual([413, failure('BODY_TOO_LARGE', GATEWAY_MESSAGES.tooLarge)]);
  expect(t.catalogue.received).toEqual([]);
});
