/** A bill as the clinic keeps it: the bill and its items are one document, so they are written atomically. */
import type { BillStatus, DiscountType, PaymentMethod, PaymentStatus } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { CashGuard } from './cash-guard';
import type { LedgerEntryDoc } from './ledger-entry';
import type { ItemInput } from './rules';

/** An item as stored: the checked input, with its id and its line total. */
export type ItemDoc = ItemInput & { id: number; line_total_cents: Cents };

/** A bill and its items are one document, so they are written atomically. */
export interface BillDoc {
  _id: string;
  id: number;
  bill_number: string;
  bill_seq: number;
  bill_date: string;
  store_id: number;
  patient_id: number | null;
  patient_name: string;
  patient_contact: string;
  patient_nic: string | null;
  patient_age: number | null;
  billed_by: number | null;
  payment_method: PaymentMethod;
  payment_status: PaymentStatus;
  discount_type: DiscountType;
  discount_value: number;
  discount_cents: Cents;
  subtotal_cents: Cents;
  grand_total_cents: Cents;
  received_cents: Cents | null;
  balance_cents: Cents | null;
  notes: string | null;
  status: BillStatus;
  /** Set with status `cancelled`, in the same write: a bill is live while this is false. */
  is_deleted: boolean;
  created_at: Date;
  updated_at: Date | null;
  items: ItemDoc[];
  /** What a search looks in (see storage/search.ts); derived from fields that never change. */
  search_text: string;
  /** Caller-scoped Idempotency-Key, absent when the client sent none. */
  idempotency_key?: string;
  request_hash?: string;
  /** Payments less reversals, and refunds (ledger-entry.ts); absent on bills stored before the ledger. */
  paid_cents?: Cents;
  refunded_cents?: Cents;
  /** The bill's payments, refunds and reversals, oldest first: the authority on its money. */
  ledger?: LedgerEntryDoc[];
  _event_ids: string[];
}

/** A cancelled bill as the day-end report lists it. */
export type CancelledBill = Pick<BillDoc, 'id' | 'bill_number' | 'grand_total_cents' | 'billed_by' | 'updated_at'>;

/**
 * What a change of a bill does: the fields it sets (its money fields
 * included) and the ledger entries it adds. `dated`: it changes the bill's
 * own day (an update, a cancellation), which must be open then.
 */
export interface BillChange {
  set: Partial<BillDoc>;
  entries: LedgerEntryDoc[];
  dated: boolean;
  /** With shifts on: the checks of the shift whose drawer the money moves in (its cash going out held). */
  cash?: CashGuard;
  /** More for its history entry (the approval it used). */
  details?: Record<string, unknown>;
}
