/**
 * One call of every route acting on a chosen branch, for the branch-scope
 * tests: the request (fresh records where the call uses one up), what a
 * refusal must say, and what a refused call must have left as it was. A
 * route without a case here (or in branch-cases-channeling.ts) fails the
 * tests that walk HTTP_ROUTES.
 */
import {
  BILLING_MESSAGES,
  BRANCH_MESSAGES,
  CATALOGUE_MESSAGES,
  HTTP_ROUTES,
  SESSIONS_MESSAGES,
  type HttpRoute,
} from '@clinic/contracts';
import { channelingCall, channelingRefusal, channelingState } from './branch-cases-channeling';
import { BranchRecords, type Branch } from './branch-records';
import type { Answer, Call } from './branch-transport';
import { startTestStack } from './harness';

export const routeName = (route: HttpRoute) => `${route.method} ${route.url}`;

/** Each route once, named, for it.each. */
/** The cash office's routes need CASH_SHIFTS=on and staff users: branch-scope-cash-office.test.ts. */
export const isCashOffice = (route: HttpRoute) => /^billing\.(shift|approval)\./.test(route.subject);

export const everyRoute = () =>
  HTTP_ROUTES.filter((route) => !isCashOffice(route)).map((route) => [routeName(route), route] as const);

export class BranchFixtures extends BranchRecords {
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
    }
    const channeling = await channelingCall(this, route, b);
    if (channeling) return channeling;
    throw new Error(`No branch-scope case for ${routeName(route)}: add one to tests/e2e/branch-cases.ts`);
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
    if (route.url.startsWith('/appointments/') || route.url.startsWith('/sessions/'))
      return channelingState(this, route, call);
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
      return channelingRefusal(route) ?? notFound(SESSIONS_MESSAGES.notFound, 'SESSION_NOT_FOUND');
  }
}

/** The route's status of success, as its responses state it (a POST that makes nothing answers 200). */
export const successStatus = (route: HttpRoute) =>
  Number(Object.keys(route.responses).find((status) => status.startsWith('2')));

/** A role the route allows: cashier where it may, else admin. */
export const roleFor = (route: HttpRoute) =>
  route.access.kind === 'roles' && !route.access.roles.includes('cashier') ? 'admin' : 'cashier';
