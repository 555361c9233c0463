/**
 * How events and history show a bill's change. Storage writes them with the
 * change, in the same write; events/ shapes them, so storage knows no view.
 */
import type { ClinicClock } from '@clinic/service-kit';
import type { BillDoc } from './bill';
import type { LedgerEntryDoc } from './ledger-entry';

export interface BillPayloads {
  /** billing.bill.created, .updated and .cancelled: the whole bill with its items and totals. */
  bill(doc: BillDoc, clock: ClinicClock): Record<string, unknown>;
  /** A ledger entry as the API, the events and the history show it. */
  entry(entry: LedgerEntryDoc, clock: ClinicClock): Record<string, unknown>;
  /** payment_recorded or refunded: the entry, and the bill's money after it. */
  money(entry: LedgerEntryDoc, after: BillDoc, clock: ClinicClock): Record<string, unknown>;
  /** What a bill's history compares between before and after a change. */
  audited(doc: BillDoc, clock: ClinicClock): Record<string, unknown>;
}
