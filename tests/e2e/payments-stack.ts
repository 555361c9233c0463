/**
 * What the payments e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventReader } from './events';
import { moneyStackOfFile, type MoneyStack } from './money';

export const file = moneyStackOfFile(12, { withEvents: true });
export let m: MoneyStack;
export let events: EventReader;
export let dir: string;
beforeAll(() => {
  m = file.stack();
  events = file.events();
  dir = mkdtempSync(join(tmpdir(), 'clinic-payments-'));
});
afterAll(() => {
  if (dir && !process.env.KEEP_E2E_DATA) rmSync(dir, { recursive: true, force: true });
});

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
export const cashier = { role: 'cashier', sub: 7 };
