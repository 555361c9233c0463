/** A branch's day's closing as the API shows it (GET /lab_bills/day_close, the day-end report). */
import type { ClinicClock } from '@clinic/service-kit';
import { cashView } from '../domain/day-end-report';
import type { ClosingDoc } from '../domain/day-closing';

/** A day's closing as the day-end shows it: the stored closing, or the day still open. */
export type DayEndClosing = ReturnType<typeof closingView> | ReturnType<typeof openDayView>;

export function closingView(doc: ClosingDoc, names: Map<number, string>, clock: ClinicClock) {
  return {
    store_id: doc.store_id,
    date: doc.date,
    status: doc.status,
    closed_at: clock.timestamp(doc.closed_at),
    closed_by: doc.closed_by,
    cash: doc.cash.map((c) => cashView(c, names)),
    history: doc.history.map((h) => ({
      action: h.action,
      at: clock.timestamp(h.at),
      by: h.by,
      ...(h.reason !== undefined ? { reason: h.reason } : {}),
      ...(h.cash ? { cash: h.cash.map((c) => cashView(c, names)) } : {}),
    })),
  };
}

/** A day never closed: open, without figures or history. */
export function openDayView(store_id: number, date: string) {
  return { store_id, date, status: 'open' as const, closed_at: null, closed_by: null, cash: [], history: [] };
}

/** The users a closing names: to read their names once. */
export function closingUsers(doc: ClosingDoc): Array<number | string> {
  return [...doc.cash, ...doc.history.flatMap((h) => h.cash ?? [])].map((c) => c.user_id);
}
