/** The event of one ledger entry of a bill: payment_recorded, or refunded for a refund or a reversal. */
import { EventSubjects } from '@clinic/contracts';
import type { ClinicClock } from '@clinic/service-kit';
import type { CarriedDoc, EventSpec, WriteProof } from '@clinic/service-kit/storage';
import { BILLS } from './documents';
import type { BillDoc } from '../domain/bill';
import type { BillPayloads } from '../domain/payloads';
import type { HoldOwner } from '../domain/shift';
import { drawerEntryOf } from './ledger-documents';
import type { LedgerEntryDoc } from '../domain/ledger-entry';

/**
 * The event of an entry, under the entry's id, carrying the entry's record in
 * bill_ledger (and `records`, the history entry when the entry is the change itself).
 */
export function moneyEvent(
  payloads: BillPayloads,
  entry: LedgerEntryDoc,
  after: BillDoc,
  clock: ClinicClock,
  correlationId: string,
  records: CarriedDoc[] = [],
): EventSpec {
  const payment = entry.kind === 'payment';
  return {
    subject: payment ? EventSubjects.billPaymentRecorded : EventSubjects.billRefunded,
    eventId: entry.id,
    correlationId,
    data: payloads.money(entry, after, clock),
    records: [drawerEntryOf(entry, after), ...records],
  };
}

/**
 * How the sweeper tells that a write of a bill (or of another document of
 * `collection` with a ledger) that added ledger entries happened: the bill
 * holds the first of them. Its ledger is never trimmed,
 * whereas the event ids it keeps are its latest 20 only (EVENT_IDS_KEPT), so
 * a write whose process died before settling it stays provable however many
 * writes of the bill follow. Entry ids are fresh, so the proof is exact.
 * Undefined when the write adds none (its event id proves it).
 */
export function ledgerProof(billKey: string, entries: LedgerEntryDoc[], collection = BILLS): WriteProof | undefined {
  const [first] = entries;
  return first ? { collection, filter: { _id: billKey, 'ledger.id': first.id }, exists: true } : undefined;
}

/** The document (a bill, an account) whose ledger holds the entries a write adds, once it landed. */
export const ledgerOwner = (key: string, collection = BILLS): HoldOwner => ({ collection, key, paths: ['ledger.id'] });
