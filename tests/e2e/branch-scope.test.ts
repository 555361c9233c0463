/**
 * Branch scope: a token with `store_ids` reaches those branches
 * only. Every route of HTTP_ROUTES, through the gateway and straight over
 * NATS, with a token in scope, out of scope (403 for a branch the request
 * names, 404 for another branch's record, nothing changed) and without the
 * claim (every branch, as before it). BRANCH_SCOPE=required is
 * branch-scope-required.test.ts.
 */
import { createSigner } from 'fast-jwt';
import {
  BILLING_MESSAGES,
  BRANCH_MESSAGES,
  BRANCH_SCOPE_RULES,
  CatalogueSubjects,
  HTTP_ROUTES,
  TOKEN_MESSAGES,
  type HttpRoute,
} from '@clinic/contracts';
import { BranchFixtures, everyRoute, isCashOffice, refusalOf, roleFor, routeName, successStatus } from './branch-cases';
import { OTHER, OWN } from './branch-records';
import { outcome, TRANSPORTS, viaNats, type Call } from './branch-transport';
import { TEST_JWT_SECRET } from './harness';

const fx = BranchFixtures.ofFile(2160);

it('classifies every route: each has a branch-scope rule and a case here (the cash office in its own file)', async () => {
  for (const route of HTTP_ROUTES) {
    expect({ route: routeName(route), rule: route.branchScope }).toEqual({
      route: routeName(route),
      rule: expect.stringMatching(/^(named|record|listed|doctor)$/),
    });
    if (!isCashOffice(route)) await expect(fx.call(route, OWN)).resolves.toBeDefined();
  }
});

it('says in the OpenAPI and AsyncAPI documents how each operation keeps to the branches', async () => {
  const openapi = (await fx.t.get('/docs/json', { token: null })).body;
  const asyncapi = (await fx.t.get('/docs/asyncapi.json', { token: null })).body;
  expect(openapi.components.securitySchemes.bearerAuth.description).toContain('store_ids');
  for (const route of HTTP_ROUTES) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    const note = expect.stringContaining(
      `Branch scope: with a token carrying \`store_ids\`, it ${BRANCH_SCOPE_RULES[route.branchScope]}.`,
    );
    expect({ route: routeName(route), says: openapi.paths[path][route.method.toLowerCase()].description }).toEqual({
      route: routeName(route),
      says: note,
    });
    expect({ route: routeName(route), says: asyncapi.operations[route.subject].description }).toEqual({
      route: routeName(route),
      says: note,
    });
  }
});

describe.each(TRANSPORTS)('over %s', (via) => {
  const send = (route: HttpRoute, call: Call, token: string) => fx.send(via, route, call, token);

  it.each(everyRoute())(
    '%s: in scope it answers, out of scope it refuses and changes nothing, without the claim it answers',
    async (_name, route) => {
      const role = roleFor(route);
      const scoped = fx.t.token(role, 41, 3600, [OWN]);

      const own = await send(route, await fx.call(route, OWN), scoped);
      expect(outcome(own)).toEqual({ status: successStatus(route), success: true });

      const call = await fx.call(route, OTHER);
      const before = await fx.state(route, call, OTHER);
      expect(await send(route, call, scoped)).toEqual(refusalOf(route));
      expect(await fx.state(route, call, OTHER)).toEqual(before);

      // A token naming both branches, and one without the claim, reach the other branch as before.
      const both = await send(route, await fx.call(route, OTHER), fx.t.token(role, 42, 3600, [OWN, OTHER]));
      expect(outcome(both)).toEqual({ status: successStatus(route), success: true });
      const unscoped = await send(route, await fx.call(route, OTHER), fx.t.token(role, 43));
      expect(outcome(unscoped)).toEqual({ status: successStatus(route), success: true });
    },
  );

  it('lists only the branches of the token where nothing names one: sessions, the preview, auto-creation', async () => {
    const scoped = fx.t.token('receptionist', 44, 3600, [OWN]);
    const route = (url: string) => HTTP_ROUTES.find((r) => r.url === url)!;
    const sessions = await send(route('/all_sessions'), {}, scoped);
    expect(sessions.status).toBe(200);
    const stores = new Set(sessions.body.sessions.map((s: { store_id: number }) => s.store_id));
    expect([...stores]).toEqual([OWN]);
    const everyBranch = await send(route('/all_sessions'), {}, fx.t.token('receptionist', 44));
    expect(new Set(everyBranch.body.sessions.map((s: { store_id: number }) => s.store_id))).toEqual(
      new Set([OWN, OTHER]),
    );

    const month = fx.newMonth();
    const preview = await send(route('/preview_auto_sessions'), { query: { month } }, scoped);
    expect(preview.body.preview.length).toBeGreaterThan(0);
    expect(new Set(preview.body.preview.map((p: { doctor_id: number }) => p.doctor_id))).toEqual(new Set([OWN]));
    // The other branch's doctor, named: nothing of it is previewed.
    const named = await send(route('/preview_auto_sessions'), { query: { month, doctor_id: String(OTHER) } }, scoped);
    expect(named.body).toMatchObject({ success: true, preview: [], new_count: 0 });

    const created = await send(route('/auto_create_sessions'), { body: { month } }, scoped);
    expect(created.status).toBe(201);
    expect(created.body.created).toBeGreaterThan(0);
    const all = await fx.t.get('/all_sessions');
    const ofMonth = all.body.sessions.filter((s: { session_date: string }) => s.session_date.startsWith(month));
    expect(ofMonth.length).toBe(created.body.created);
    expect(new Set(ofMonth.map((s: { store_id: number }) => s.store_id))).toEqual(new Set([OWN]));
  });
});

it("keeps a bill's charges to its branch: another branch's charge on a bill of the token's branch is refused", async () => {
  const bill = {
    ...fx.newBillBody(OWN),
    items: [{ charge_id: fx.charge[OTHER], charge_name: 'X', unit_price: 1, qty: 1 }],
  };
  const res = await fx.t.post('/lab_bills', bill, { token: fx.t.token('cashier', 45, 3600, [OWN]) });
  expect({ status: res.status, body: res.body }).toEqual({
    status: 400,
    body: {
      success: false,
      error: BILLING_MESSAGES.invalidCharges(OWN, [fx.charge[OTHER]]),
      code: 'BILL_CHARGES_INVALID',
      field: 'items',
    },
  });
});

it("has the catalogue refuse billing's charge check for a branch outside the caller's, over NATS", async () => {
  const billing = await fx.t.nats('billing');
  const check = (token: string, storeId: number) =>
    viaNats(
      billing,
      { subject: CatalogueSubjects.check } as never,
      { body: { store_id: storeId, charge_ids: [fx.charge[OTHER]] } },
      token,
    );
  expect(await check(fx.t.token('cashier', 46, 3600, [OWN]), OTHER)).toEqual({
    status: 403,
    body: { success: false, error: BRANCH_MESSAGES.notAllowed, code: 'BRANCH_NOT_ALLOWED' },
  });
  expect(await check(fx.t.token('cashier', 46, 3600, [OWN, OTHER]), OTHER)).toEqual({
    status: 200,
    body: { success: true, invalid_ids: [], amounts: { [String(fx.charge[OTHER])]: expect.any(Number) } },
  });
});

it('refuses a store_ids claim that is not a list of branch ids, at the gateway and over NATS (401)', async () => {
  const route = HTTP_ROUTES.find((r) => r.method === 'GET' && r.url === '/lab_bills')!;
  const call = { query: { store_id: String(OWN) } };
  for (const storeIds of ['1', 1, null, {}, [0], [-1], [1.5], ['1'], [1, '2'], [Number.MAX_SAFE_INTEGER + 1]]) {
    const token = createSigner({ key: TEST_JWT_SECRET, expiresIn: 600_000 })({
      sub: 47,
      role: 'cashier',
      store_ids: storeIds,
    });
    const expected = { status: 401, body: { success: false, error: TOKEN_MESSAGES.storeIds, code: 'TOKEN_INVALID' } };
    expect({ storeIds, http: await fx.send('HTTP', route, call, token) }).toEqual({ storeIds, http: expected });
    expect({ storeIds, nats: await fx.send('NATS', route, call, token) }).toEqual({ storeIds, nats: expected });
  }
  // An empty list is well formed and reaches no branch.
  const none = fx.t.token('cashier', 47, 3600, []);
  expect(await fx.send('HTTP', route, call, none)).toEqual(refusalOf(route));
});
