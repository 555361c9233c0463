/**
 * bill_ledger's documents: a drawer entry of each ledger entry (domain/ledger-entry.ts),
 * for the drawer's queries by branch and day, stored through the outbox with its event.
 */
import type { CarriedDoc } from '@clinic/service-kit/storage';
import type { DrawerKind } from '../domain/drawer';
import type { DrawerEntryDoc } from '../domain/drawer-rows';
import type { LedgerEntryDoc } from '../domain/ledger-entry';

export const BILL_LEDGER = 'bill_ledger';

/** What a drawer entry says besides the entry's own fields: whose money it is. */
type DrawerOwner = Omit<
  DrawerEntryDoc,
  '_id' | 'day' | 'collector' | 'role' | 'method' | 'kind' | 'amount_cents' | 'at' | 'shift_id'
>;

/** The drawer entry of a ledger entry (or a payout) in bill_ledger, stored with its event (see Outbox, CarriedDoc). */
export function drawerEntry(
  entry: Pick<LedgerEntryDoc, 'day' | 'by' | 'method' | 'amount_cents' | 'at' | 'drawer'> & { kind: DrawerKind },
  owner: DrawerOwner,
): CarriedDoc {
  const shift = entry.drawer?.shift_id;
  const doc: Omit<DrawerEntryDoc, '_id'> = {
    ...owner,
    ...(shift ? { shift_id: shift } : {}),
    day: entry.day,
    collector: entry.drawer?.user ?? entry.by.sub,
    role: entry.by.role,
    method: entry.method,
    kind: entry.kind,
    amount_cents: entry.amount_cents,
    at: entry.at,
  };
  return { collection: BILL_LEDGER, doc };
}

/** The drawer entry of a bill's ledger entry. */
export function drawerEntryOf(entry: LedgerEntryDoc, bill: { id: number; store_id: number }): CarriedDoc {
  return drawerEntry(entry, { bill_id: bill.id, store_id: bill.store_id });
}
