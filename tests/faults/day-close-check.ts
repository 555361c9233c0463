/**
 * A branch's day closed right after a fault, while its aftermath is still
 * being settled (entries of a killed replica the sweeper has not reached,
 * events not yet published): the cash the close counted for the money load's
 * user must be exactly the cash of the payments and refunds the API
 * acknowledged on that day, in every fault so far (they share the day).
 * The day is reopened afterwards, so that the next fault's load can move
 * money on it.
 */
import type { TestStack } from '../e2e/harness';
import type { MoneyOp } from './money-load';

export interface CloseFigures {
  close_day: string;
  /** Attempts until the close went through (409 "still being recorded" and 5xx are retried). */
  close_attempts: number;
  close_ms: number;
  /** The cash the close expected of the money load's user, and the cash that user's acknowledged operations moved. */
  close_counted_cents: number | null;
  close_acknowledged_cents: number;
  close_difference_cents: number | null;
}

/** Every money operation of each stack's loads checked so far: the day's cash is theirs together. */
const opsOf = new WeakMap<TestStack, MoneyOp[]>();

/** Closes the money's day of `ops` in branch 1, compares, and reopens it. */
export async function closeTheDay(t: TestStack, ops: MoneyOp[], sub: number): Promise<CloseFigures> {
  const all = [...(opsOf.get(t) ?? []), ...ops];
  opsOf.set(t, all);
  const day = ops.find((op) => op.moved)?.moved?.day;
  if (!day) throw new Error('no payment or refund was acknowledged: nothing to close');
  const startedAt = Date.now();
  let attempts = 0;
  let answerLost = false;
  let closing: { cash: Array<{ user_id: number | string; expected: number }> } | undefined;
  while (!closing) {
    attempts++;
    const res = await t.post('/lab_bills/day_close', { store_id: 1, date: day });
    if (res.status === 201) closing = res.body.closing;
    // An earlier attempt answered 5xx but closed the day (its answer, not its write, was lost): read that close.
    else if (res.status === 409 && res.body.code === 'DAY_ALREADY_CLOSED' && answerLost)
      closing = (await t.get(`/lab_bills/day_close?store_id=1&date=${day}`)).body.closing;
    else if ((res.status === 409 && /Please retry/.test(res.body.error)) || res.status >= 500) {
      if (Date.now() - startedAt > 60_000) throw new Error(`the day was not closed within 60 s: ${res.status}`);
      answerLost ||= res.status >= 500;
      await new Promise((resolve) => setTimeout(resolve, 500));
    } else throw new Error(`the day was refused a close: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const closeMs = Date.now() - startedAt;
  const reopened = await t.request('DELETE', `/lab_bills/day_close?store_id=1&date=${day}`, { reason: 'fault test' });
  if (reopened.status !== 200) throw new Error(`the day was not reopened: ${reopened.status}`);
  const counted = closing.cash.find((c) => c.user_id === sub);
  const acknowledged = all
    .filter((op) => op.moved?.day === day && op.moved.method === 'Cash')
    .reduce((sum, op) => sum + (op.kind === 'payment' ? 1 : -1) * Math.round(op.moved!.amount * 100), 0);
  const countedCents = counted ? Math.round(counted.expected * 100) : null;
  return {
    close_day: day,
    close_attempts: attempts,
    close_ms: closeMs,
    close_counted_cents: countedCents,
    close_acknowledged_cents: acknowledged,
    close_difference_cents: countedCents === null ? null : countedCents - acknowledged,
  };
}
