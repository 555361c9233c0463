/**
 * What the money-compat e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import { ledgerOf, moneyStackOfFile, type MoneyStack } from './money';

export const file = moneyStackOfFile(40);
export let m: MoneyStack;
beforeAll(() => {
  m = file.stack();
});

export const entries = async (id: number) =>
  (await ledgerOf(m, id)).ledger.map((e: any) => [e.kind, e.method, e.amount, e.by.sub]);
export const put = (id: number, body: unknown, options = {}) => m.t.put(`/lab_bills/${id}`, body, options);
