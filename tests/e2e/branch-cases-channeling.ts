/**
 * The branch-scope cases of channeling's routes: how to call each
 * on a chosen branch, what a refused call must have left as it was, and the
 * not-found it answers for another branch's record.
 */
import { CHANNELING_MESSAGES, SESSIONS_MESSAGES, type HttpRoute } from '@clinic/contracts';
import type { Answer, Call } from './branch-transport';
import type { Branch, BranchRecords } from './branch-records';

/** The call of a channeling route acting on branch `b`; null for a route of another part. */
export async function channelingCall(fx: BranchRecords, route: HttpRoute, b: Branch): Promise<Call | null> {
  const id = (value: number) => ({ [route.param as string]: String(value) });
  switch (`${route.method} ${route.url}`) {
    case 'POST /sessions/:session_id/appointments':
      return { params: id(fx.bookings[b]), body: fx.newPatient() };
    case 'GET /sessions/:session_id/appointments':
      return { params: id(fx.bookings[b]) };
    case 'POST /sessions/:session_id/complete':
      return { params: id(await fx.newSession(b)) };
    case 'POST /sessions/:session_id/settlement': {
      const session = await fx.newSession(b);
      await fx.t.post(`/sessions/${session}/complete`);
      return { params: id(session), body: { method: 'Cash' } };
    }
    case 'GET /sessions/:session_id/settlement':
      return { params: id(fx.settled[b]) };
    case 'DELETE /sessions/:session_id/settlement':
      return { params: id(await fx.newSettledSession(b)), body: { reason: 'Paid twice' } };
    case 'GET /appointments/:appointment_id':
    case 'GET /appointments/:appointment_id/slip':
      return { params: id(fx.appointment[b]) };
    case 'PUT /appointments/:appointment_id':
      return { params: id(fx.appointment[b]), body: { patient_name: `Corrected ${fx.next()}` } };
    case 'DELETE /appointments/:appointment_id':
      return { params: id(await fx.newAppointment(b)), body: { reason: 'Cannot come' } };
    case 'POST /appointments/:appointment_id/payments':
      return { params: id(await fx.newAppointment(b)), body: { amount: 10, method: 'Card' } };
    case 'GET /appointments/:appointment_id/payments':
      return { params: id(fx.paidAppointment[b]) };
    case 'POST /appointments/:appointment_id/refunds':
      return {
        params: id(await fx.newPaidAppointment(b)),
        body: { amount: 10, method: 'Card', reason: 'Paid twice' },
      };
    default:
      return null;
  }
}

/** What a refused call must have left as it was: the appointment with its money, or the session with its own. */
export async function channelingState(fx: BranchRecords, route: HttpRoute, call: Call): Promise<unknown> {
  const read = async (path: string) => {
    const res = await fx.t.get(path);
    return { status: res.status, body: res.body };
  };
  const id = call.params?.[route.param as string];
  if (route.url.startsWith('/appointments/'))
    return [await read(`/appointments/${id}`), await read(`/appointments/${id}/payments`)];
  if (route.url.startsWith('/sessions/'))
    return [
      await read(`/get_session/${id}`),
      await read(`/sessions/${id}/appointments`),
      await read(`/sessions/${id}/settlement`),
    ];
  return null;
}

/** The not-found a channeling route answers for another branch's record; null for a route of another part. */
export function channelingRefusal(route: HttpRoute): Answer | null {
  const notFound = (error: string, code: string) => ({ status: 404, body: { success: false, error, code } });
  if (route.url.startsWith('/appointments/'))
    return notFound(CHANNELING_MESSAGES.appointmentNotFound, 'APPOINTMENT_NOT_FOUND');
  // A settlement read or reversed is looked up as such: the session's branch tells it is none of the caller's.
  if (route.url === '/sessions/:session_id/settlement' && route.method !== 'POST')
    return notFound(CHANNELING_MESSAGES.notSettled, 'SETTLEMENT_NOT_FOUND');
  if (route.url.startsWith('/sessions/')) return notFound(SESSIONS_MESSAGES.notFound, 'SESSION_NOT_FOUND');
  return null;
}
