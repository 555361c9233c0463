/**
 * One call of every route acting on a chosen branch, for the branch-scope
 * tests: the request (fresh records where the call uses one up), what a
 * refusal must say, and what a refused call must have left as it was. A
 * route without a case here fails the tests that walk HTTP_ROUTES.
 */
import { headers as natsHeaders, type NatsConnection } from 'nats';
import {
  BILLING_MESSAGES,
  BRANCH_MESSAGES,
  CATALOGUE_MESSAGES,
  HTTP_ROUTES,
  SESSIONS_MESSAGES,
  type HttpRoute,
} from '@clinic/contracts';
import { branch } from './fixtures';
import { startTestStack, type TestStack } from './harness';

/** The branch the scoped tokens hold, and the one they do not. */
export const OWN = 1;
export const OTHER = 2;
export type Branch = typeof OWN | typeof OTHER;

export interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

export interface Answer {
  status: number;
  body: any;
}

export const routeName = (route: HttpRoute) => `${route.method} ${route.url}`;

/** Each route once, named, for it.each. */
export const everyRoute = () => HTTP_ROUTES.map((route) => [routeName(route), route] as const);

/** Through the gateway, or straight to the service over NATS as another hospital system. */
export const TRANSPORTS = ['HTTP', 'NATS'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** An answer's outcome: a success that is not JSON (a receipt) counts as one. */
export const outcome = (answer: Answer) => ({ status: answer.status, success: answer.body?.success ?? true });

const doctor = (id: Branch) => ({
  id,
  name: `Dr. Branch ${id}`,
  reg_no: `SLMC-B${id}`,
  specialization: 'General',
  channeling_fee: 1500,
  status: 'Active',
  store_id: id,
  schedule: [{ day: 'Monday', session_no: 1, start_time: '08:00', end_time: '10:00', max_patients: 10 }],
});

/** The records every call stands on, per branch, and fresh ones on demand; `year` keeps its dates apart. */
export class BranchFixtures {
  readonly charge = {} as Record<Branch, number>;
  readonly bill = {} as Record<Branch, number>;
  readonly session = {} as Record<Branch, number>;
  private serial = 0;
  private hospital!: NatsConnection;
  private stack?: TestStack;

  private constructor(private readonly year: number) {}

  /**
   * The test file's fixtures: a stack with `env`, its two branches and their records, started before the
   * file's tests and stopped after them; `year` keeps this file's dates apart.
   */
  static ofFile(year: number, env: Record<string, string> = {}): BranchFixtures {
    const fx = new BranchFixtures(year);
    beforeAll(async () => {
      fx.stack = await startTestStack({ env });
      await fx.prepare();
    });
    afterAll(() => fx.stack?.stop());
    return fx;
  }

  /** The file's stack (in its tests and hooks). */
  get t(): TestStack {
    return this.stack!;
  }

  send(via: Transport, route: HttpRoute, call: Call, token: string): Promise<Answer> {
    return via === 'HTTP' ? viaHttp(this.t, route, call, token) : viaNats(this.hospital, route, call, token);
  }

  private async prepare(): Promise<void> {
    this.hospital = await this.t.nats('hospital');
    await this.t.seed({
      stores: [branch(OWN, 'Colombo'), branch(OTHER, 'Kandy')],
      patients: [{ id: 1, name: 'Nimal' }],
      doctors: [doctor(OWN), doctor(OTHER)],
    });
    for (const b of [OWN, OTHER] as const) {
      this.charge[b] = await this.newCharge(b);
      this.bill[b] = await this.newBill(b);
      this.session[b] = await this.newSession(b);
    }
  }

  private next(): number {
    return ++this.serial;
  }

  /** A POST as an admin token without the claim (every branch), which must succeed. */
  private async created(path: string, body: unknown, idField: string): Promise<number> {
    const res = await this.t.post(path, body);
    if (res.status !== 201) throw new Error(`setup ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body[idField];
  }

  newChargeBody(b: Branch) {
    return { charge_name: `Test ${this.next()}`, charge_type: 'Lab', amount: 100, store_id: b };
  }

  newBillBody(b: Branch) {
    return {
      patient_name: 'Nimal',
      patient_contact: '0771234567',
      bill_date: this.billDate,
      payment_method: 'Card',
      store_id: b,
      items: [{ charge_id: this.charge[b], charge_name: 'Test', unit_price: 100, qty: 1 }],
    };
  }

  newSessionBody(b: Branch) {
    const n = this.next();
    const date = new Date(Date.UTC(this.year, 0, 1 + n)).toISOString().slice(0, 10);
    return { doctor_id: b, session_date: date, session_no: 1, start_time: '09:00', end_time: '10:00' };
  }

  get billDate(): string {
    return `${this.year}-01-15`;
  }

  /** A month of its own for each auto-creation. */
  newMonth(): string {
    const n = this.next();
    return `${this.year + 1 + Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, '0')}`;
  }

  newCharge(b: Branch) {
    return this.created('/hospital_charges', this.newChargeBody(b), 'charge_id');
  }

  newBill(b: Branch) {
    return this.created('/lab_bills', this.newBillBody(b), 'bill_id');
  }

  /** A bill with its whole total still due. */
  newPendingBill(b: Branch) {
    return this.created('/lab_bills', { ...this.newBillBody(b), payment_status: 'Pending' }, 'bill_id');
  }

  /** A past day of its own for each close (a day in the future cannot be closed). */
  newPastDay(): string {
    return new Date(Date.UTC(2001, 0, this.next())).toISOString().slice(0, 10);
  }

  /** A past day of branch `b`, closed by an admin of every branch. */
  async closedDay(b: Branch): Promise<string> {
    const date = this.newPastDay();
    await this.created('/lab_bills/day_close', { store_id: b, date }, 'message');
    return date;
  }

  newSession(b: Branch) {
    return this.created('/add_session', this.newSessionBody(b), 'session_id');
  }

  /** The call of `route` acting on branch `b`. */
  async call(route: HttpRoute, b: Branch): Promise<Call> {
    const id = (value: number) => ({ [route.param as string]: String(value) });
    switch (routeName(route)) {
      case 'POST /lab_bills':
        return { body: this.newBillBody(b) };
      case 'GET /lab_bills':
      case 'GET /lab_bills/summary':
        return { query: { store_id: String(b) } };
      case 'GET /lab_bills/day_end':
        return { query: { store_id: String(b), date: this.billDate } };
      case 'GET /lab_bills/export':
        return { query: { store_id: String(b), from: this.billDate, to: this.billDate, format: 'csv' } };
      case 'GET /lab_bills/ledger/export':
        return { query: { store_id: String(b), from: this.billDate, to: this.billDate, format: 'csv' } };
      case 'GET /lab_bills/:bill_id/refund_slip': {
        const bill = await this.newBill(b);
        const refund = await this.t.post(`/lab_bills/${bill}/refunds`, { amount: 10, method: 'Card', reason: 'Test' });
        return { params: id(bill), query: { refund_id: refund.body.refund.id } };
      }
      case 'GET /lab_bills/:bill_id/cancellation_slip': {
        const bill = await this.newBill(b);
        await this.t.del(`/lab_bills/${bill}`);
        return { params: id(bill) };
      }
      case 'GET /lab_bills/:bill_id':
      case 'GET /lab_bills/:bill_id/history':
      case 'GET /lab_bills/:bill_id/receipt':
      case 'GET /lab_bills/:bill_id/payments':
        return { params: id(this.bill[b]) };
      case 'POST /lab_bills/:bill_id/payments':
        return { params: id(await this.newPendingBill(b)), body: { amount: 10, method: 'Card' } };
      case 'POST /lab_bills/:bill_id/refunds':
        return { params: id(await this.newBill(b)), body: { amount: 10, method: 'Card', reason: 'Test not done' } };
      case 'POST /lab_bills/day_close':
        return { body: { store_id: b, date: this.newPastDay() } };
      case 'GET /lab_bills/day_close':
        return { query: { store_id: String(b), date: this.billDate } };
      case 'DELETE /lab_bills/day_close':
        return { query: { store_id: String(b), date: await this.closedDay(b) }, body: { reason: 'Counted again' } };
      case 'PUT /lab_bills/:bill_id':
        return { params: id(this.bill[b]), body: { notes: `note ${this.next()}` } };
      case 'DELETE /lab_bills/:bill_id':
        return { params: id(await this.newBill(b)) };
      case 'GET /hospital_charges':
        return { query: { store_id: String(b) } };
      case 'POST /hospital_charges':
        return { body: this.newChargeBody(b) };
      case 'GET /hospital_charges/:charge_id':
      case 'GET /hospital_charges/:charge_id/history':
        return { params: id(this.charge[b]) };
      case 'PUT /hospital_charges/:charge_id':
        return {
          params: id(this.charge[b]),
          body: { charge_name: `Charge of ${b}`, charge_type: 'Lab', amount: 100 + this.next() },
        };
      case 'DELETE /hospital_charges/:charge_id':
        return { params: id(await this.newCharge(b)) };
      case 'GET /all_sessions':
        return { query: { store_id: String(b) } };
      case 'GET /get_session/:session_id':
        return { params: id(this.session[b]) };
      case 'POST /add_session':
        return { body: this.newSessionBody(b) };
      case 'PUT /update_session/:session_id':
        return { params: id(this.session[b]), body: { max_patients: this.next() } };
      case 'DELETE /delete_session/:session_id':
        return { params: id(await this.newSession(b)) };
      case 'GET /preview_auto_sessions':
        return { query: { store_id: String(b), month: this.newMonth() } };
      case 'POST /auto_create_sessions':
        return { body: { store_id: b, month: this.newMonth() } };
      default:
        throw new Error(`No branch-scope case for ${routeName(route)}: add one to tests/e2e/branch-cases.ts`);
    }
  }

  /** What a refused call of `route` on branch `b` must have left as it was, read with a token of every branch. */
  async state(route: HttpRoute, call: Call, b: Branch): Promise<unknown> {
    const read = async (path: string) => {
      const res = await this.t.get(path);
      return { status: res.status, body: res.body };
    };
    const id = route.param ? call.params?.[route.param] : undefined;
    if (route.url === '/lab_bills/day_close') {
      const day = call.query ?? { store_id: String(b), date: (call.body as { date: string }).date };
      return read(`/lab_bills/day_close?${new URLSearchParams(day)}`);
    }
    if (route.url.startsWith('/lab_bills/:')) return read(`/lab_bills/${id}/history`);
    if (route.url.startsWith('/hospital_charges/:')) return read(`/hospital_charges/${id}/history`);
    if (route.param) return read(`/get_session/${id}`);
    if (route.method === 'GET') return null;
    if (route.url === '/lab_bills') return (await read(`/lab_bills?store_id=${b}`)).body.total;
    if (route.url === '/hospital_charges') return (await read(`/hospital_charges?store_id=${b}`)).body.count;
    return (await read(`/all_sessions?store_id=${b}`)).body.sessions.length;
  }
}

/** What a token limited to OWN is answered when `route` acts on OTHER. */
export function refusalOf(route: HttpRoute): Answer {
  const notFound = (error: string, code: string) => ({ status: 404, body: { success: false, error, code } });
  switch (route.branchScope) {
    case 'named':
    case 'listed':
      return { status: 403, body: { success: false, error: BRANCH_MESSAGES.notAllowed, code: 'BRANCH_NOT_ALLOWED' } };
    case 'doctor':
      return notFound(SESSIONS_MESSAGES.doctorNotFound, 'DOCTOR_NOT_FOUND');
    case 'record':
      if (route.url.startsWith('/lab_bills')) return notFound(BILLING_MESSAGES.notFound, 'BILL_NOT_FOUND');
      if (route.url.startsWith('/hospital_charges')) return notFound(CATALOGUE_MESSAGES.notFound, 'CHARGE_NOT_FOUND');
      return notFound(SESSIONS_MESSAGES.notFound, 'SESSION_NOT_FOUND');
  }
}

export const successStatus = (route: HttpRoute) => (route.method === 'POST' ? 201 : 200);

/** A role the route allows: cashier where it may, else admin. */
export const roleFor = (route: HttpRoute) =>
  route.access.kind === 'roles' && !route.access.roles.includes('cashier') ? 'admin' : 'cashier';

/** The call through the gateway; a success that is not JSON (a receipt) has a null body. */
export async function viaHttp(t: TestStack, route: HttpRoute, call: Call, token: string): Promise<Answer> {
  let path = route.url;
  for (const [name, value] of Object.entries(call.params ?? {})) path = path.replace(`:${name}`, value);
  if (call.query) path += `?${new URLSearchParams(call.query)}`;
  const res = await t.request(route.method, path, call.body, { token });
  return { status: res.status, body: typeof res.body === 'object' ? res.body : null };
}

/** The same call straight to the service over NATS, as another hospital system makes it. */
export async function viaNats(nc: NatsConnection, route: HttpRoute, call: Call, token: string): Promise<Answer> {
  const h = natsHeaders();
  h.set('authorization', `Bearer ${token}`);
  const reply = await nc.request(route.subject, JSON.stringify(call), { headers: h, timeout: 10_000 });
  return reply.json<Answer>();
}
