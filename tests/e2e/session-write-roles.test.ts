/**
 * SESSION_WRITE_ROLES: the roles that may create, update, delete
 * and auto-create sessions; others get 403 before anything is read, at the
 * gateway and from the service over NATS alike, and may still read. Unset,
 * any authenticated caller may, as the spec says (every other session test).
 */
import { AUTH_MESSAGES, HTTP_ROUTES, SESSION_WRITE_SUBJECTS } from '@clinic/contracts';
import { BranchFixtures, everyRoute, successStatus } from './branch-cases';
import { OWN } from './branch-records';
import { outcome, TRANSPORTS } from './branch-transport';

const fx = BranchFixtures.ofFile(2167, { SESSION_WRITE_ROLES: 'admin, receptionist' });

/** The routes the sessions service answers: the spec's and channeling's (bookings and their moves are not limited). */
const sessionRoutes = everyRoute().filter(([, route]) => route.subject.startsWith('sessions.'));

it('limits exactly the four session writes', () => {
  const writes = HTTP_ROUTES.filter((route) => SESSION_WRITE_SUBJECTS.includes(route.subject));
  expect(writes.map((route) => `${route.method} ${route.url}`).sort()).toEqual([
    'DELETE /delete_session/:session_id',
    'POST /add_session',
    'POST /auto_create_sessions',
    'PUT /update_session/:session_id',
  ]);
});

describe.each(TRANSPORTS)('over %s', (via) => {
  it.each(sessionRoutes)('%s: a role it names answers, another all but the session writes', async (_name, route) => {
    const write = SESSION_WRITE_SUBJECTS.includes(route.subject);
    const call = await fx.call(route, OWN);
    const before = await fx.state(route, call, OWN);
    const cashier = await fx.send(via, route, call, fx.t.token('cashier', 61));
    if (write) {
      expect(cashier).toEqual({
        status: 403,
        body: { success: false, error: AUTH_MESSAGES.forbidden, code: 'FORBIDDEN' },
      });
      expect(await fx.state(route, call, OWN)).toEqual(before);
    } else {
      expect(outcome(cashier)).toEqual({ status: successStatus(route), success: true });
    }
    const receptionist = await fx.send(via, route, await fx.call(route, OWN), fx.t.token('receptionist', 62));
    expect(outcome(receptionist)).toEqual({ status: successStatus(route), success: true });
  });
});
