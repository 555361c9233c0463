/**
 * Reference data and charges the e2e files seed, named once: the same branch,
 * staff and patients recur across files, and the tests' bills and reports carry
 * their names.
 */
import { doctorRecord } from '@clinic/devstack';
import type { TestStack } from './harness';

/** A branch (a store) as the hospital's reference data holds an open one. */
export const branch = (id: number, name: string) => ({ id, name, status: 'active' });

export const MAIN_BRANCH = branch(1, 'Main');
export const SECOND_BRANCH = branch(2, 'Second');

export const ADMIN_USER = { id: 1, name: 'Admin User' };
export const KASUN = { id: 7, name: 'Kasun Silva' };
export const DILANI = { id: 8, name: 'Dilani Perera' };

/** A doctor as the hospital's reference data holds one (see doctorRecord). */
export const doctor = doctorRecord;

export const PATIENTS = [
  { id: 1, name: 'Nimal Fernando' },
  { id: 2, name: 'Ayesha Jayawardena' },
];

/** A Lab charge in the branch, through the gateway (`extra`: its status, say); its id. */
export async function chargeIn(
  t: TestStack,
  storeId: number,
  name: string,
  amount: number,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const made = await t.post('/hospital_charges', {
    store_id: storeId,
    charge_name: name,
    charge_type: 'Lab',
    amount,
    ...extra,
  });
  if (made.status !== 201)
    throw new Error(`the ${name} of branch ${storeId} was refused: ${JSON.stringify(made.body)}`);
  return made.body.charge_id;
}

/** A CBC at 850 in the branch, through the gateway; its id. */
export function cbcIn(t: TestStack, storeId: number): Promise<number> {
  return chargeIn(t, storeId, 'CBC', 850);
}

/** A bill of one CBC at 850 for Nimal Fernando, paid in cash: the body POST /lab_bills takes, `overrides` over it. */
export function cbcBill(storeId: number, chargeId: number, billDate: string, overrides: Record<string, unknown> = {}) {
  return {
    patient_name: 'Nimal Fernando',
    patient_contact: '0771234567',
    bill_date: billDate,
    payment_method: 'Cash',
    store_id: storeId,
    items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    ...overrides,
  };
}

/** The Main branch and its CBC, all that most platform tests bill against; the charge's id. */
export async function seedMainWithCbc(t: TestStack): Promise<number> {
  await t.seed({ stores: [MAIN_BRANCH] });
  return cbcIn(t, MAIN_BRANCH.id);
}
