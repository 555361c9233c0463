/**
 * A bill's money: its ledger entries live on the bill (or an appointment's
 * account), the one document a change of it writes atomically.
 */
import type { Caller, LedgerKind, PaymentMethod, PaymentStatus } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { DrawerRef } from './drawer';

export interface LedgerEntryDoc {
  /** Also the id of its event (payment_recorded or refunded) and of its drawer entry in bill_ledger. */
  id: string;
  kind: LedgerKind;
  amount_cents: Cents;
  method: PaymentMethod;
  /** Cash payments: what the patient handed over, and the change given back. */
  received_cents: Cents | null;
  change_cents: Cents | null;
  reference: string | null;
  reason: string | null;
  item_id: number | null;
  /** The clinic's day the money moved (YYYY-MM-DD): the drawer it is counted in. */
  day: string;
  at: Date;
  by: Caller;
  /** The drawer the money moved in (absent on entries from before drawers were named: the mover's). */
  drawer?: DrawerRef;
  /** The caller-scoped Idempotency-Key of the request that recorded it, and that request's hash. */
  idempotency_key?: string;
  request_hash?: string;
}

/**
 * What holds money through a ledger of its own: a bill, an appointment's
 * account. The money rules (money-rules.ts) read no more of it than this.
 */
export interface MoneyDoc {
  grand_total_cents: Cents;
  /** What a refund may name by `item_id`, each at most its line total. */
  items: ReadonlyArray<{ id: number; line_total_cents: Cents }>;
  /** Payments less reversals, and refunds; absent on bills stored before the ledger. */
  paid_cents?: Cents;
  refunded_cents?: Cents;
  /** Oldest first: the authority on the document's money. */
  ledger?: LedgerEntryDoc[];
  /** Bills stored before the ledger: a Paid one was paid its total, in its method. */
  payment_status?: PaymentStatus;
  payment_method?: PaymentMethod;
}
