/** How the API, the events and the history show a bill, its items, its ledger entries and its balance. */
import { fromCents, nullableAmount, type ClinicClock } from '@clinic/service-kit';
import type { BillDoc } from '../domain/bill';
import { userKey } from '../domain/drawer';
import { moneyOf } from '../domain/money-rules';
import type { LedgerEntryDoc } from '../domain/ledger-entry';

/** The bill as the API shows it (billed_by_name is resolved by the reads). */
export function billView(
  doc: BillDoc,
  clock: ClinicClock,
  billedByName: string | null = null,
): Record<string, unknown> {
  const money = moneyOf(doc);
  return {
    id: doc.id,
    bill_number: doc.bill_number,
    store_id: doc.store_id,
    patient_id: doc.patient_id,
    patient_name: doc.patient_name,
    patient_contact: doc.patient_contact,
    patient_nic: doc.patient_nic,
    patient_age: doc.patient_age,
    bill_date: doc.bill_date,
    billed_by: doc.billed_by,
    billed_by_name: billedByName,
    payment_method: doc.payment_method,
    payment_status: doc.payment_status,
    discount_type: doc.discount_type,
    discount_value: doc.discount_value,
    discount_amount: fromCents(doc.discount_cents),
    subtotal: fromCents(doc.subtotal_cents),
    grand_total: fromCents(doc.grand_total_cents),
    received_amount: nullableAmount(doc.received_cents),
    balance_amount: nullableAmount(doc.balance_cents),
    notes: doc.notes,
    status: doc.status,
    is_deleted: doc.is_deleted,
    created_at: clock.timestamp(doc.created_at),
    updated_at: clock.timestamp(doc.updated_at),
    paid_amount: fromCents(money.paid),
    refunded_amount: fromCents(money.refunded),
    due_amount: fromCents(money.due),
  };
}

/** A bill's items in the order they were billed. */
export function itemsInOrder(doc: BillDoc): BillDoc['items'] {
  return [...doc.items].sort((a, b) => a.id - b.id);
}

export function itemsView(doc: BillDoc): Record<string, unknown>[] {
  return itemsInOrder(doc).map((item) => ({
    id: item.id,
    bill_id: doc.id,
    charge_id: item.charge_id,
    charge_name: item.charge_name,
    unit_price: fromCents(item.unit_price_cents),
    qty: item.qty,
    line_total: fromCents(item.line_total_cents),
  }));
}

/** An entry as the API shows it. */
export function entryView(entry: LedgerEntryDoc, clock: ClinicClock): Record<string, unknown> {
  return {
    id: entry.id,
    kind: entry.kind,
    amount: fromCents(entry.amount_cents),
    method: entry.method,
    received_amount: nullableAmount(entry.received_cents),
    change_amount: nullableAmount(entry.change_cents),
    reference: entry.reference,
    reason: entry.reason,
    item_id: entry.item_id,
    day: entry.day,
    at: clock.timestamp(entry.at),
    by: entry.by,
    drawer: { user_id: entry.drawer?.user ?? userKey(entry.by.sub), shift_id: entry.drawer?.shift_id ?? null },
  };
}

/** What a bill's money stands at after a change, as its payments list shows it. */
export function balanceView(doc: BillDoc): Record<string, unknown> {
  const money = moneyOf(doc);
  return {
    grand_total: fromCents(doc.grand_total_cents),
    paid_amount: fromCents(money.paid),
    refunded_amount: fromCents(money.refunded),
    due_amount: fromCents(money.due),
    payment_status: doc.payment_status,
  };
}
