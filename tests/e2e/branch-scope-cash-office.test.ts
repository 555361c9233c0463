/**
 * Branch scope of the cash office's routes, with CASH_SHIFTS=on:
 * through the gateway and straight over NATS, a token limited to one branch
 * opens, moves, closes and hands over shifts and asks for approvals there,
 * is refused at the other (403 for a branch it names, 404 for another
 * branch's shift or approval) with nothing changed, and a token naming both
 * branches or none reaches the other as before. The other routes are
 * branch-scope.test.ts; shifts there are off.
 */
import { APPROVAL_MESSAGES, BRANCH_MESSAGES, HTTP_ROUTES, SHIFT_MESSAGES, type HttpRoute } from '@clinic/contracts';
import { isCashOffice, routeName, successStatus } from './branch-cases';
import { OTHER, OWN, type Branch } from './branch-records';
import { outcome, TRANSPORTS, viaHttp, viaNats, type Answer, type Call } from './branch-transport';
import { cashOfficeStackOfFile } from './cash-office-stack';
import { clinicToday, type MoneyStack } from './money';

/** Staff users made for this file, one or two per call: each opens its own shifts. */
const STAFF = Array.from({ length: 300 }, (_, i) => ({ id: 300 + i, name: `Cashier ${300 + i}` }));
const file = cashOfficeStackOfFile(2);
let m: MoneyStack;
let hospital: Awaited<ReturnType<MoneyStack['t']['nats']>>;
let nextStaff = 0;
beforeAll(async () => {
  m = file.stack();
  await m.t.seed({ users: STAFF });
  hospital = await m.t.nats('hospital');
});

const cashOfficeRoutes = HTTP_ROUTES.filter(isCashOffice);

const staff = () => {
  const user = STAFF[nextStaff++];
  if (!user) throw new Error('no staff user left for this file');
  return user.id;
};
const asUser = (sub: number, role = 'cashier') => ({ token: m.t.token(role, sub) });

async function created(path: string, body: unknown, sub: number, role = 'cashier'): Promise<any> {
  const res = await m.t.post(path, body, asUser(sub, role));
  if (res.status >= 300) throw new Error(`setup ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
const openShift = async (b: Branch, sub: number) =>
  (await created('/shifts', { store_id: b, float: 1000 }, sub)).shift.id as number;
const askApproval = async (b: Branch, sub: number) =>
  (
    await created(
      '/approvals',
      {
        store_id: b,
        checks: [{ rule: 'price_override', details: { charge_id: 1, catalogue_price: 1100, unit_price: 1 } }],
        reason: 'Staff rate',
      },
      sub,
    )
  ).approval.id as number;

/** One call of a cash-office route acting on branch `b`: the request, who makes it, and as what role. */
interface Case {
  call: Call;
  sub: number;
  role: string;
}

async function caseOf(route: HttpRoute, b: Branch): Promise<Case> {
  const sub = staff();
  const onShift = async (body: unknown, role = 'cashier'): Promise<Case> => ({
    call: { params: { shift_id: String(await openShift(b, sub)) }, body },
    sub,
    role,
  });
  const onApproval = async (body?: unknown): Promise<Case> => ({
    call: { params: { approval_id: String(await askApproval(b, staff())) }, body },
    sub,
    role: 'admin',
  });
  switch (route.operationId) {
    case 'openShift':
      return { call: { body: { store_id: b, float: 1000 } }, sub, role: 'cashier' };
    case 'listShifts':
      return { call: { query: { store_id: String(b), date: clinicToday() } }, sub, role: 'cashier' };
    case 'getShift':
      return onShift(undefined);
    case 'dropCash':
      return onShift({ amount: 100, reason: 'To the safe' });
    case 'payOutCash':
      return onShift({ amount: 50, reason: 'Stationery' });
    case 'closeShift':
      return onShift({ counted: 1000 });
    case 'handOverShift':
      return onShift({ to_user_id: staff(), counted: 1000 });
    case 'signOffShift': {
      const closing = await onShift({ note: 'Counted with the cashier' }, 'admin');
      await created(`/shifts/${closing.call.params!.shift_id}/close`, { counted: 1000 }, sub);
      return closing;
    }
    case 'acceptHandover': {
      const from = staff();
      const shift = await openShift(b, from);
      await created(`/shifts/${shift}/handover`, { to_user_id: sub, counted: 1000 }, from);
      return { call: { params: { shift_id: String(shift) }, body: { amount: 1000 } }, sub, role: 'cashier' };
    }
    case 'requestApproval':
      return {
        call: {
          body: {
            store_id: b,
            checks: [{ rule: 'price_override', details: { charge_id: 1, catalogue_price: 1100, unit_price: 1 } }],
            reason: 'Staff rate',
          },
        },
        sub,
        role: 'cashier',
      };
    case 'listApprovals':
      return { call: { query: { store_id: String(b) } }, sub, role: 'cashier' };
    case 'getApproval':
      return { ...(await onApproval()), role: 'cashier' };
    case 'approveApproval':
      return onApproval({ note: 'Staff member' });
    case 'declineApproval':
      return onApproval({ note: 'Not staff' });
  }
  throw new Error(`No branch-scope case for ${routeName(route)}: add one to ${__filename}`);
}

/** What a refused call must have left as it was, read by an admin of every branch. */
async function stateOf(route: HttpRoute, { call }: Case, b: Branch): Promise<unknown> {
  const read = async (path: string) => {
    const res = await m.t.get(path);
    return { status: res.status, body: res.body };
  };
  if (call.params?.shift_id) return read(`/shifts/${call.params.shift_id}`);
  if (call.params?.approval_id) return read(`/approvals/${call.params.approval_id}`);
  if (route.operationId === 'openShift') return read(`/shifts?store_id=${b}&date=${clinicToday()}`);
  if (route.operationId === 'requestApproval') return read(`/approvals?store_id=${b}&date=${clinicToday()}`);
  return null;
}

function refusalOf(route: HttpRoute): Answer {
  const refused = (status: number, error: string, code: string) => ({ status, body: { success: false, error, code } });
  if (route.branchScope === 'named' || route.branchScope === 'listed')
    return refused(403, BRANCH_MESSAGES.notAllowed, 'BRANCH_NOT_ALLOWED');
  if (route.url.startsWith('/shifts/')) return refused(404, SHIFT_MESSAGES.notFound, 'SHIFT_NOT_FOUND');
  return refused(404, APPROVAL_MESSAGES.notFound, 'APPROVAL_NOT_FOUND');
}

it('covers every route of the cash office, each with a branch-scope rule', () => {
  expect(cashOfficeRoutes.map((route) => route.operationId).sort()).toEqual(
    [
      'openShift',
      'listShifts',
      'getShift',
      'dropCash',
      'payOutCash',
      'closeShift',
      'signOffShift',
      'handOverShift',
      'acceptHandover',
      'requestApproval',
      'listApprovals',
      'getApproval',
      'approveApproval',
      'declineApproval',
    ].sort(),
  );
  for (const route of cashOfficeRoutes) expect(['named', 'record', 'listed']).toContain(route.branchScope);
});

describe.each(TRANSPORTS)('over %s', (via) => {
  const send = (route: HttpRoute, c: Case, stores?: number[]) => {
    const token = m.t.token(c.role, c.sub, 3600, stores);
    return via === 'HTTP' ? viaHttp(m.t, route, c.call, token) : viaNats(hospital, route, c.call, token);
  };

  it.each(cashOfficeRoutes.map((route) => [routeName(route), route] as const))(
    '%s: in scope it answers, out of scope it refuses and changes nothing, without the claim it answers',
    async (_name, route) => {
      const own = await send(route, await caseOf(route, OWN), [OWN]);
      expect(outcome(own)).toEqual({ status: successStatus(route), success: true });

      const other = await caseOf(route, OTHER);
      const before = await stateOf(route, other, OTHER);
      expect(await send(route, other, [OWN])).toEqual(refusalOf(route));
      expect(await stateOf(route, other, OTHER)).toEqual(before);

      const both = await send(route, await caseOf(route, OTHER), [OWN, OTHER]);
      expect(outcome(both)).toEqual({ status: successStatus(route), success: true });
      const unscoped = await send(route, await caseOf(route, OTHER));
      expect(outcome(unscoped)).toEqual({ status: successStatus(route), success: true });
    },
  );
});
