/**
 * An appointment's money (issue 42): sessions keep the appointment, billing
 * its account, one document per appointment that ever took money, keyed by
 * the appointment's id and opened by its first payment with the fee split
 * as booked. Its ledger lives on it exactly as a bill's lives on the bill
 * (ledger-documents.ts): its two items are the doctor's share and the
 * hospital's (FEE_PARTS).
 */
import type { Collection, Db } from 'mongodb';
import { FEE_PARTS } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { LedgerEntryDoc, MoneyDoc } from './ledger-documents';

export const APPOINTMENT_ACCOUNTS = 'appointment_accounts';
/** Every payment, refund and cancellation's giving back of an appointment, never changed. */
export const APPOINTMENT_HISTORY = 'appointment_history';

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

const accountKey = (id: number) => String(id);

/** A new account, holding nothing yet. */
export function newAccount(opening: AccountOpening, at: Date): Omit<AccountDoc, '_event_ids'> {
  const { fees, ...appointment } = opening;
  return {
    _id: accountKey(opening.id),
    ...appointment,
    grand_total_cents: fees.doctor + fees.hospital,
    items: [
      { id: FEE_PARTS.doctor, part: 'doctor', line_total_cents: fees.doctor },
      { id: FEE_PARTS.hospital, part: 'hospital', line_total_cents: fees.hospital },
    ],
    paid_cents: 0,
    refunded_cents: 0,
    ledger: [],
    created_at: at,
    updated_at: at,
  };
}

/** The fee split an account was opened with. */
export function feesOf(doc: Pick<AccountDoc, 'items'>): { doctor: Cents; hospital: Cents } {
  const share = (id: number) => doc.items.find((item) => item.id === id)?.line_total_cents ?? 0;
  return { doctor: share(FEE_PARTS.doctor), hospital: share(FEE_PARTS.hospital) };
}

export class AccountQueries {
  readonly accounts: Collection<AccountDoc>;

  constructor(db: Db) {
    this.accounts = db.collection<AccountDoc>(APPOINTMENT_ACCOUNTS);
  }

  findById(id: number): Promise<AccountDoc | null> {
    return this.accounts.findOne({ _id: accountKey(id) });
  }

  /** The accounts of these appointments that have one (by `_id`: the index every collection has). */
  async findMany(ids: readonly number[]): Promise<Map<number, AccountDoc>> {
    if (ids.length === 0) return new Map();
    const docs = await this.accounts.find({ _id: { $in: [...new Set(ids)].map(accountKey) } }).toArray();
    return new Map(docs.map((doc) => [doc.id, doc]));
  }
}
