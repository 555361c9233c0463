/** A bill as its receipt shows it: the figures the paper prints, from the bill, its ledger and who is who. */
import type { Caller } from '@clinic/contracts';
import type { ClinicClock } from '@clinic/service-kit';
import type { LetterheadLines } from '../domain/letterhead';
import { cashHandedOver, receiptStatus, tenders } from '../domain/receipt-facts';
import { moneyOf } from '../domain/money-rules';
import { formatAmount, type CopyFacts, type ReceiptData, type ReceiptEntry } from './paper/receipt';
import type { BillDoc } from '../domain/bill';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import { itemsInOrder } from './bill-view';

export interface ReceiptContext {
  letterhead: LetterheadLines;
  copy: CopyFacts;
  /** The cancellation's history entry of a cancelled bill (null fields: cancelled before the audit trail). */
  cancellation: { at: Date; by: Caller | null; reason: string | null } | null;
  /** A user's name as the papers print it. */
  nameOf: (user: number | string | null) => string;
  clock: ClinicClock;
}

const KIND_LABELS = { payment: 'Payment', refund: 'Refund', reversal: 'Reversal' } as const;

/** An entry's line and details: cash handed over, its reference or reason, who moved the money and when. */
export function receiptEntry(entry: LedgerEntryDoc, context: Pick<ReceiptContext, 'nameOf' | 'clock'>): ReceiptEntry {
  const back = entry.kind === 'payment' ? 1 : -1;
  const details: Array<[string, string]> = [];
  if (entry.received_cents !== null) details.push(['Received', formatAmount(entry.received_cents)]);
  if (entry.change_cents !== null) details.push(['Change given', formatAmount(entry.change_cents)]);
  if (entry.reference) details.push(['Reference', entry.reference]);
  if (entry.reason) details.push(['Reason', entry.reason]);
  const time = (context.clock.timestamp(entry.at) as string).slice(11);
  details.push([
    entry.kind === 'payment' ? 'Collected by' : 'Given back by',
    `${context.nameOf(entry.by.sub)}, ${time}`,
  ]);
  return {
    label: `${KIND_LABELS[entry.kind]} ${entry.day} ${entry.method}`,
    amount: back * entry.amount_cents,
    details,
  };
}

export function receiptData(doc: BillDoc, context: ReceiptContext): ReceiptData {
  const money = moneyOf(doc);
  const figures = { ...doc, money };
  const { cancellation, clock, nameOf } = context;
  return {
    letterhead: context.letterhead,
    copy: context.copy,
    cancelled: cancellation && {
      at: clock.timestamp(cancellation.at) as string,
      by: cancellation.by ? nameOf(cancellation.by.sub) : '-',
      reason: cancellation.reason,
    },
    billNumber: doc.bill_number,
    billDate: doc.bill_date,
    billedAt: clock.timestamp(doc.created_at) as string,
    patientName: doc.patient_name,
    patientContact: doc.patient_contact,
    patientAge: doc.patient_age,
    patientNic: doc.patient_nic,
    items: itemsInOrder(doc).map((item) => ({
      name: item.charge_name,
      qty: item.qty,
      unitPrice: item.unit_price_cents,
      lineTotal: item.line_total_cents,
    })),
    subtotal: doc.subtotal_cents,
    discount: doc.discount_cents,
    discountRate: doc.discount_type === 'pct' && doc.discount_value > 0 ? `${doc.discount_value}%` : null,
    grandTotal: doc.grand_total_cents,
    paymentMethod: tenders(figures)[0]?.method ?? doc.payment_method,
    tenders: tenders(figures),
    paymentStatus: receiptStatus(figures),
    cash: cashHandedOver(figures),
    entries: money.ledger.map((entry) => receiptEntry(entry, context)),
    paid: money.paid,
    refunded: money.refunded,
    due: money.due,
    notes: doc.notes,
    billedBy: nameOf(doc.billed_by),
  };
}
