/**
 * An appointment's money: sessions keep the appointment, billing its
 * account, whose ledger lives on it as a bill's lives on the bill; its two
 * items are the doctor's share and the hospital's (FEE_PARTS).
 */
import { FEE_PARTS } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { LedgerEntryDoc, MoneyDoc } from './ledger-entry';

export interface AccountItemDoc {
  id: number;
  part: keyof typeof FEE_PARTS;
  line_total_cents: Cents;
}

export interface AccountDoc extends MoneyDoc {
  /** The appointment's id (session id x 10,000 + its number); `_id` is its text. */
  _id: string;
  id: number;
  session_id: number;
  store_id: number;
  doctor_id: number;
  session_date: string;
  /** The fee as booked: the doctor's share and the hospital's. */
  grand_total_cents: Cents;
  items: AccountItemDoc[];
  paid_cents: Cents;
  refunded_cents: Cents;
  ledger: LedgerEntryDoc[];
  created_at: Date;
  updated_at: Date;
  _event_ids: string[];
}

/** What an account is opened with: the appointment as sessions answered it. */
export interface AccountOpening {
  id: number;
  session_id: number;
  store_id: number;
  doctor_id: number;
  session_date: string;
  fees: { doctor: Cents; hospital: Cents };
}

/** The fee split an account was opened with. */
export function feesOf(doc: Pick<AccountDoc, 'items'>): { doctor: Cents; hospital: Cents } {
  const share = (id: number) => doc.items.find((item) => item.id === id)?.line_total_cents ?? 0;
  return { doctor: share(FEE_PARTS.doctor), hospital: share(FEE_PARTS.hospital) };
}
