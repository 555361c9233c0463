/**
 * The AsyncAPI document as the gateway serves it, checked against the running
 * system: every subject the services subscribe to and every event they
 * publish is in it, and every message of a tour through all the routes (the
 * request envelope the gateway builds, the reply, and the events read from the
 * streams) validates against its schema in the document.
 */
import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import {
  asyncApiDocument,
  BillingSubjects,
  HTTP_ROUTES,
  SERVICE_NAMES,
  SessionsSubjects,
  type HttpRoute,
  type ServiceName,
} from '@clinic/contracts';
import { callService } from '@clinic/service-kit';
import { requestEnvelope } from '../../services/gateway/src/envelope';
import { cashOfficeTour, openTourShift, TOUR_STAFF, type TourCall } from './asyncapi-cash-office';
import { EventReader } from './events';
import { branch, doctor } from './fixtures';
import { startTestStack, type TestStack } from './harness';

let t: TestStack;
let doc: any;
const readers: EventReader[] = [];
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

beforeAll(async () => {
  // The cash office on, that its routes and events are part of the tour (asyncapi-cash-office.ts).
  t = await startTestStack({ env: { CASH_SHIFTS: 'on', APPROVE_CATALOGUE_CHANGES: 'true' } });
  const nc = await t.nats('hospital');
  for (const service of SERVICE_NAMES) readers.push(await EventReader.start(nc, `${service.toUpperCase()}_EVENTS`));
  await t.seed({
    stores: [branch(1, 'Main')],
    users: TOUR_STAFF,
    doctors: [
      doctor(1, {
        name: 'Dr. A',
        specialization: 'General',
        schedule: [{ day: 'Monday', session_no: 1, start_time: '08:00', end_time: '11:00', max_patients: 20 }],
      }),
    ],
  });
  doc = (await t.get('/docs/asyncapi.json', { token: null })).body;
}, 120_000);
afterAll(async () => {
  for (const reader of readers) reader.stop();
  await t?.stop();
});

function payloadSchema(messageId: string): object {
  const message = doc.components.messages[messageId];
  if (!message) throw new Error(`no message ${messageId} in the document`);
  return message.payload;
}

function expectValid(messageId: string, value: unknown, valid = true): void {
  const validate = ajv.compile(payloadSchema(messageId));
  const ok = validate(value);
  if (valid) expect({ messageId, value, errors: ok ? [] : validate.errors }).toEqual({ messageId, value, errors: [] });
  else expect({ messageId, value, valid: ok }).toEqual({ messageId, value, valid: false });
}

it('serves the generated document, valid for @asyncapi/parser, and an offline HTML page rendering it', async () => {
  expect(doc).toEqual(JSON.parse(JSON.stringify(asyncApiDocument())));
  const { diagnostics } = await new Parser().parse(JSON.stringify(doc));
  expect(diagnostics).toEqual([]);
  const page = await t.get('/docs/asyncapi', { token: null });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toContain('text/html');
  // Nothing from the internet: every script and style sheet comes from the gateway.
  const links = [...String(page.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(links.sort()).toEqual(['asyncapi/default.min.css', 'asyncapi/standalone.js']);
  for (const link of links) {
    const asset = await fetch(`${t.url}/docs/${link}`);
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  }
  expect((await t.get('/docs/asyncapi/other.js', { token: null })).status).toBe(404);
  // Not listed among the HTTP operations of the OpenAPI document.
  const openapi = (await t.get('/docs/json', { token: null })).body;
  expect(Object.keys(openapi.paths).filter((p) => p.includes('asyncapi'))).toEqual([]);
}, 60_000);

it('documents every subject the running services subscribe to', () => {
  const addresses = new Set(Object.values(doc.channels as Record<string, any>).map((c) => c.address));
  for (const service of SERVICE_NAMES) {
    const serving = readFileSync(`${t.stack.logDir}/${service}-1.log`, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"msg":"serving"'))
      .map((line) => JSON.parse(line))[0];
    expect(serving.subjects.length).toBeGreaterThan(3);
    for (const subject of serving.subjects)
      expect({ service, subject, documented: addresses.has(subject) }).toEqual({ service, subject, documented: true });
    expect(doc.operations[serving.subjects[0]].bindings.nats.queue).toBe(serving.queue);
  }
});

it('validates every request envelope, reply and event of a tour through all the routes', async () => {
  const exercised = new Set<HttpRoute>();
  /**
   * Sends one request through the gateway and validates both messages of its
   * NATS hop (a request the service refuses must not validate either).
   */
  const call: TourCall = async (method, path, body, validRequest = true, token) => {
    const url = new URL(path, t.url);
    const route = HTTP_ROUTES.find(
      (r) => r.method === method && new RegExp(`^${r.url.replace(/:\w+/g, '[^/]+')}$`).test(url.pathname),
    )!;
    exercised.add(route);
    const params = route.param ? { [route.param]: url.pathname.split('/').pop()! } : {};
    const query = Object.fromEntries(url.searchParams);
    const raw = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const envelope = JSON.parse(Buffer.from(requestEnvelope(route, params, query, raw)).toString());
    expectValid(`${route.subject}.request`, envelope, validRequest);
    const res = await t.request(method, path, body, token === undefined ? {} : { token });
    // A route that produces bytes answers them as they are over HTTP; its NATS reply (base64 in the
    // envelope) is read from the service itself, as another hospital system would call it.
    const reply =
      route.produces || route.exports
        ? await callService(await t.nats('hospital'), route.subject, envelope, {
            token: t.token(),
            correlationId: 'asyncapi-tour',
            timeoutMs: 5_000,
          })
        : { status: res.status, body: res.body };
    expectValid(`${route.subject}.reply`, reply);
    return res;
  };

  const shift = await openTourShift(call);
  const charge = await call('POST', '/hospital_charges', {
    store_id: 1,
    charge_name: 'CBC',
    charge_type: 'Lab',
    amount: 850,
    notes: null,
  });
  expect(charge.status).toBe(201);
  const chargeId = charge.body.charge_id;
  const spare = (
    await call('POST', '/hospital_charges', { store_id: 1, charge_name: 'ESR', charge_type: 'Lab', amount: 300 })
  ).body.charge_id;
  await call('GET', '/hospital_charges?store_id=1');
  await call('GET', `/hospital_charges/${chargeId}`);
  expect(
    (await call('PUT', `/hospital_charges/${chargeId}`, { charge_name: 'CBC', charge_type: 'Lab', amount: 900 }))
      .status,
  ).toBe(200);
  expect((await call('DELETE', `/hospital_charges/${spare}`)).status).toBe(200);
  expect((await call('GET', `/hospital_charges/${spare}/history`)).status).toBe(200);
  expect((await call('GET', '/hospital_charges/999999')).status).toBe(404);

  const bill = await call('POST', '/lab_bills', {
    patient_name: 'P',
    patient_contact: 'C',
    bill_date: '2094-03-01',
    payment_method: 'Cash',
    store_id: 1,
    items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 900, qty: 2 }],
    received_amount: 2000,
    balance_amount: 200,
  });
  expect(bill.status).toBe(201);
  await call('GET', '/lab_bills?store_id=1&date=2094-03-01');
  await call('GET', '/lab_bills/summary?store_id=1&from_date=2094-03-01&to_date=2094-03-31');
  await call('GET', `/lab_bills/${bill.body.bill_id}`);
  // Created Paid: its payment's event; a refund, then a PUT back to Pending (a reversal), then a payment.
  const refund = { amount: 100, method: 'Cash', reason: 'Tour', item_id: null };
  const refunded = await call('POST', `/lab_bills/${bill.body.bill_id}/refunds`, refund);
  expect(refunded.status).toBe(201);
  const refundSlip = `/lab_bills/${bill.body.bill_id}/refund_slip?refund_id=${refunded.body.refund.id}`;
  expect((await call('GET', refundSlip)).status).toBe(200);
  expect((await call('PUT', `/lab_bills/${bill.body.bill_id}`, { payment_status: 'Pending' })).status).toBe(200);
  const payment = { amount: 500, method: 'Card', reference: 'slip 1' };
  expect((await call('POST', `/lab_bills/${bill.body.bill_id}/payments`, payment)).status).toBe(201);
  expect((await call('POST', `/lab_bills/${bill.body.bill_id}/payments`, { amount: -1 }, false)).status).toBe(400);
  expect((await call('GET', `/lab_bills/${bill.body.bill_id}/payments`)).status).toBe(200);
  expect((await call('GET', `/lab_bills/${bill.body.bill_id}/receipt`)).status).toBe(200);
  expect((await call('DELETE', `/lab_bills/${bill.body.bill_id}`, { reason: 'Tour' })).status).toBe(200);
  expect((await call('GET', `/lab_bills/${bill.body.bill_id}/cancellation_slip`)).status).toBe(200);
  expect((await call('GET', `/lab_bills/${bill.body.bill_id}/history`)).status).toBe(200);
  expect((await call('GET', '/lab_bills/day_end?store_id=1&date=2094-03-01')).status).toBe(200);
  expect((await call('GET', '/lab_bills/day_end?store_id=1&date=2094-03-01&format=pdf')).status).toBe(200);
  expect((await call('GET', '/lab_bills/export?store_id=1&from=2094-03-01&to=2094-03-02&format=csv')).status).toBe(200);
  const ledger = '/lab_bills/ledger/export?store_id=1&from=2094-03-01&to=2094-03-02&format=xlsx';
  expect((await call('GET', ledger)).status).toBe(200);
  // The day the tour's money moved on: closed, read, reopened.
  const today = (await t.get(`/lab_bills/${bill.body.bill_id}/history`)).body.history.findLast(
    (e: { ledger?: unknown }) => e.ledger,
  ).ledger[0].day;
  await cashOfficeTour(call, shift, t.token('cashier', 2), today);
  expect((await call('POST', '/lab_bills/day_close', { store_id: 1, date: today })).status).toBe(201);
  expect((await call('GET', `/lab_bills/day_close?store_id=1&date=${today}`)).status).toBe(200);
  expect(
    (await call('DELETE', `/lab_bills/day_close?store_id=1&date=${today}`, { reason: 'Tour reopens it' })).status,
  ).toBe(200);
  expect((await call('POST', '/lab_bills', { store_id: 1 }, false)).status).toBe(400);
  await openTourShift(call);

  const session = await call('POST', '/add_session', {
    doctor_id: 1,
    session_date: '2094-03-02',
    session_no: 1,
    start_time: '08:00',
    end_time: '11:00',
    max_patients: 10,
  });
  expect(session.status).toBe(201);
  await call('GET', '/all_sessions?store_id=1&date=2094-03-02');
  await call('GET', `/get_session/${session.body.session_id}`);
  expect((await call('PUT', `/update_session/${session.body.session_id}`, { max_patients: 12 })).status).toBe(200);
  expect((await call('DELETE', `/delete_session/${session.body.session_id}`)).status).toBe(200);
  await call('GET', '/preview_auto_sessions?month=2094-04&store_id=1');
  expect((await call('POST', '/auto_create_sessions', { month: '2094-04', store_id: 1 })).status).toBe(201);

  await channelingTour(call);
  expect(HTTP_ROUTES.filter((r) => !exercised.has(r)).map((r) => `${r.method} ${r.url}`)).toEqual([]);

  // The events of the tour, as other hospital systems read them: each subject the document says is published.
  const published = Object.values(doc.operations as Record<string, any>)
    .filter((op) => op.action === 'send')
    .map((op) => doc.channels[op.channel.$ref.split('/').pop()].address as string);
  for (const subject of published) {
    const reader = readers[SERVICE_NAMES.indexOf(subject.split('.')[0] as ServiceName)]!; // one per service
    await reader.waitFor((e) => e.subject === subject);
  }
  const events = readers.flatMap((reader) => reader.received);
  expect(new Set(events.map((e) => e.subject))).toEqual(new Set(published));
  for (const e of events) expectValid(e.subject, e.event);
}, 90_000);

/**
 * Channeling's routes and the subjects billing and sessions ask each other: a session with its
 * bookings, moves, money, cancellations, completion and settlement, and one closed with a booking in it.
 */
async function channelingTour(call: TourCall) {
  const session = async (sessionNo: number) => {
    const made = await call('POST', '/add_session', {
      doctor_id: 1,
      session_date: '2094-03-03',
      session_no: sessionNo,
      start_time: '08:00',
      end_time: '11:00',
      max_patients: 10,
    });
    expect(made.status).toBe(201);
    return made.body.session_id as number;
  };
  const book = async (id: number, name: string) => {
    const booked = await call('POST', `/sessions/${id}/appointments`, {
      patient_name: name,
      patient_contact: '0771234567',
      patient_nic: '851234567V',
      fee_level: 'local',
      source: 'counter',
    });
    expect(booked.status).toBe(201);
    return booked.body.appointment.id as number;
  };
  const id = await session(2);
  const [seen, absent, dropped] = [await book(id, 'Seen'), await book(id, 'Absent'), await book(id, 'Dropped')];
  expect((await call('POST', `/sessions/${id}/appointments`, { patient_contact: 'C' }, false)).status).toBe(400);
  expect((await call('GET', `/sessions/${id}/appointments`)).status).toBe(200);
  expect((await call('GET', `/appointments/${seen}`)).status).toBe(200);
  expect((await call('PUT', `/appointments/${seen}`, { patient_contact: '0770000000' })).status).toBe(200);
  expect((await call('PUT', `/appointments/${seen}`, { status: 'arrived' })).status).toBe(200);
  expect((await call('POST', `/appointments/${seen}/payments`, { amount: 2500, method: 'Cash' })).status).toBe(201);
  const refund = { amount: 100, method: 'Cash', reason: 'Tour', item_id: 1 };
  expect((await call('POST', `/appointments/${seen}/refunds`, refund)).status).toBe(201);
  expect((await call('GET', `/appointments/${seen}/payments`)).status).toBe(200);
  expect((await call('GET', `/appointments/${seen}/slip`)).status).toBe(200);
  expect((await call('PUT', `/appointments/${seen}`, { status: 'consulted' })).status).toBe(200);
  expect((await call('DELETE', `/appointments/${dropped}`, { reason: 'Cannot come' })).status).toBe(200);
  expect((await call('POST', `/sessions/${id}/complete`)).status).toBe(200);
  expect((await call('POST', `/sessions/${id}/settlement`, { method: 'Cash' })).status).toBe(201);
  expect((await call('GET', `/sessions/${id}/settlement`)).status).toBe(200);
  expect((await call('GET', `/sessions/${id}/settlement?format=pdf`)).status).toBe(200);
  expect((await call('DELETE', `/sessions/${id}/settlement`, { reason: 'Tour reverses it' })).status).toBe(200);
  expect((await call('GET', `/appointments/${absent}`)).body.appointment.status).toBe('absent');

  // A session closed with a booking in it: session.cancelled, and its appointment's.
  const closed = await session(3);
  await book(closed, 'Sent home');
  expect((await call('PUT', `/update_session/${closed}`, { status: 'Closed' })).status).toBe(200);

  // What billing and sessions ask each other, as each one's NATS user asks it.
  const ask = async (user: 'billing' | 'sessions', subject: string, envelope: Record<string, unknown>) => {
    expectValid(`${subject}.request`, envelope);
    const reply = await callService(await t.nats(user), subject, envelope, {
      token: t.token(),
      correlationId: 'asyncapi-tour',
      timeoutMs: 5_000,
    });
    expectValid(`${subject}.reply`, reply);
    return reply;
  };
  expect((await ask('billing', SessionsSubjects.channeling, { query: { session_id: String(id) } })).status).toBe(200);
  const one = { query: { appointment_id: String(seen) } };
  expect((await ask('billing', SessionsSubjects.channeling, one)).status).toBe(200);
  const again = { params: { appointment_id: String(dropped) }, body: { reason: 'Cannot come' } };
  expect((await ask('billing', SessionsSubjects.cancelAppointment, again)).body).toMatchObject({ already: true });
  const balances = { body: { appointment_ids: [seen, absent] } };
  expect((await ask('sessions', BillingSubjects.appointmentBalances, balances)).status).toBe(200);
}
