/**
 * What the cash office's e2e files share: a money stack (money.ts)
 * with shifts on and two billing replicas, its staff (one who signs in
 * through an identity provider, named by a record's `subject`), and shifts,
 * drops, closes and handovers through the gateway.
 */
import { ADMIN_USER, DILANI, KASUN } from './fixtures';
import type { ApiResponse, RequestOptions } from './harness';
import { moneyStackOfFile, type MoneyStack } from './money';

export const ADMIN: RequestOptions = { role: 'admin', sub: ADMIN_USER.id };
export const KASUN_CASHIER: RequestOptions = { role: 'cashier', sub: KASUN.id };
export const DILANI_CASHIER: RequestOptions = { role: 'cashier', sub: DILANI.id };
/** A cashier who signs in through an identity provider: a text `sub`, which her user record carries. */
export const NIMALI = { id: 9, name: 'Nimali Jayasuriya', subject: 'auth0|5f1c9e7a' };
export const NIMALI_CASHIER: RequestOptions = { role: 'cashier', sub: NIMALI.subject };
/** A token whose subject no user record carries. */
export const STRANGER: RequestOptions = { role: 'cashier', sub: 'auth0|unknown' };

/** The file's stack with the cash office's settings (`env` over shifts on), seeded with the staff above. */
export function cashOfficeStackOfFile(stores: number, env: Record<string, string> = { CASH_SHIFTS: 'on' }) {
  const file = moneyStackOfFile(stores, { env, replicas: { billing: 2 }, withEvents: true });
  beforeAll(async () => {
    await file.stack().t.seed({ users: [NIMALI] });
  });
  return file;
}

/** Opens a shift at `store` as `as`, with its float; the shift's answer. */
export async function openShift(m: MoneyStack, store: number, float: number, as: RequestOptions, extra = {}) {
  const res = await m.t.post('/shifts', { store_id: store, float, ...extra }, as);
  if (res.status !== 201) throw new Error(`shift not opened: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.shift as { id: number; [field: string]: any };
}

export const shiftOf = async (m: MoneyStack, id: number) => (await m.t.get(`/shifts/${id}`)).body.shift;

export const closeShift = (m: MoneyStack, id: number, counted: number, as: RequestOptions, extra = {}) =>
  m.t.post(`/shifts/${id}/close`, { counted, ...extra }, as);

/** A status and body, for comparing an answer whole. */
export const answer = (res: ApiResponse) => ({ status: res.status, body: res.body });

/** A refusal whose text is made per case (its code is not found from the text, as failureOf finds fixed ones). */
export const refusal = (code: string, error: string, field?: string) => ({
  success: false,
  error,
  code,
  ...(field === undefined ? {} : { field }),
});
