/**
 * BRANCH_SCOPE=required: every role but admin must name its
 * branches (`store_ids`); without the claim it gets 403 at the gateway and
 * from the service over NATS alike, before anything is read or changed. An
 * admin token without the claim keeps its chain-wide reach.
 */
import { AUTH_MESSAGES, BRANCH_MESSAGES, HTTP_ROUTES } from '@clinic/contracts';
import { BranchFixtures, everyRoute, roleFor, successStatus } from './branch-cases';
import { OTHER, OWN } from './branch-records';
import { outcome, TRANSPORTS } from './branch-transport';

const fx = BranchFixtures.ofFile(2165, { BRANCH_SCOPE: 'required' });

const noBranch = { status: 403, body: { success: false, error: BRANCH_MESSAGES.noBranch, code: 'BRANCH_REQUIRED' } };

describe.each(TRANSPORTS)('over %s', (via) => {
  it.each(everyRoute())(
    '%s: staff without store_ids get 403 and change nothing; admin without it and staff with it answer',
    async (_name, route) => {
      const role = roleFor(route);
      if (role !== 'admin') {
        const call = await fx.call(route, OWN);
        const before = await fx.state(route, call, OWN);
        expect(await fx.send(via, route, call, fx.t.token(role, 51))).toEqual(noBranch);
        expect(await fx.state(route, call, OWN)).toEqual(before);
      } else {
        // An admin-only route: a staff role is refused for its role, as before.
        const res = await fx.send(via, route, await fx.call(route, OWN), fx.t.token('cashier', 51));
        expect(res).toEqual({
          status: 403,
          body: { success: false, error: AUTH_MESSAGES.forbidden, code: 'FORBIDDEN' },
        });
      }
      const admin = await fx.send(via, route, await fx.call(route, OTHER), fx.t.token('admin', 52));
      expect(outcome(admin)).toEqual({ status: successStatus(route), success: true });
      const scoped = await fx.send(via, route, await fx.call(route, OWN), fx.t.token(role, 53, 3600, [OWN]));
      expect(outcome(scoped)).toEqual({ status: successStatus(route), success: true });
    },
  );
});

it('asks the claim of any role but admin, not only the staff roles', async () => {
  const route = HTTP_ROUTES.find((r) => r.url === '/all_sessions')!;
  expect(await fx.send('HTTP', route, {}, fx.t.token('doctor', 54))).toEqual(noBranch);
  expect(await fx.send('NATS', route, {}, fx.t.token('doctor', 54))).toEqual(noBranch);
  const scoped = await fx.send('HTTP', route, {}, fx.t.token('doctor', 54, 3600, [OTHER]));
  expect(scoped.status).toBe(200);
  expect(new Set(scoped.body.sessions.map((s: { store_id: number }) => s.store_id))).toEqual(new Set([OTHER]));
});
