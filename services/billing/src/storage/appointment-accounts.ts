/**
 * An appointment's money: sessions keep the appointment, billing
 * its account, one document per appointment that ever took money, keyed by
 * the appointment's id and opened by its first payment with the fee split
 * as booked. Its ledger lives on it exactly as a bill's lives on the bill
 * (domain/ledger-entry.ts): its two items are the doctor's share and the
 * hospital's (FEE_PARTS).
 */
import type { Collection, Db } from 'mongodb';
import { FEE_PARTS } from '@clinic/contracts';
import type { AccountDoc, AccountOpening } from '../domain/appointment-account';

export const APPOINTMENT_ACCOUNTS = 'appointment_accounts';
/** Every payment, refund and cancellation's giving back of an appointment, never changed. */
export const APPOINTMENT_HISTORY = 'appointment_history';

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
