/** The payloads of a bill's events and history: what storage writes with each change (domain/payloads.ts). */
import type { ClinicClock } from '@clinic/service-kit';
import type { BillDoc } from '../domain/bill';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import type { BillPayloads } from '../domain/payloads';
import { balanceView, billView, entryView, itemsView } from '../views/bill-view';

/** What events carry: the whole bill with its items and totals. */
export function billEventData(doc: BillDoc, clock: ClinicClock): Record<string, unknown> {
  const { billed_by_name: _omitted, ...bill } = billView(doc, clock);
  return { bill: { ...bill, items: itemsView(doc) } };
}

/** payment_recorded or refunded: the entry, and the bill's money after it. */
function moneyEventData(entry: LedgerEntryDoc, after: BillDoc, clock: ClinicClock): Record<string, unknown> {
  return {
    [entry.kind === 'payment' ? 'payment' : 'refund']: entryView(entry, clock),
    // The bill's money as it is after the change; named bill_id, not id, as it is not the whole bill that
    // billing.bill.created/updated/cancelled carry (readers that match those on data.bill.id skip these).
    bill: {
      bill_id: after.id,
      bill_number: after.bill_number,
      store_id: after.store_id,
      bill_date: after.bill_date,
      ...balanceView(after),
    },
  };
}

/** What a bill's history compares between before and after a change: what the API shows of it, but ids and timestamps. */
function auditedFields(doc: BillDoc, clock: ClinicClock): Record<string, unknown> {
  const {
    id: _id,
    billed_by_name: _name,
    is_deleted: _deleted,
    created_at: _created,
    updated_at: _updated,
    // The money a change moved is listed apart, as its ledger entries.
    paid_amount: _paid,
    refunded_amount: _refunded,
    due_amount: _due,
    ...fields
  } = billView(doc, clock);
  return { ...fields, items: itemsView(doc).map(({ bill_id: _bill, ...item }) => item) };
}

export const BILL_PAYLOADS: BillPayloads = {
  bill: billEventData,
  entry: entryView,
  money: moneyEventData,
  audited: auditedFields,
};
