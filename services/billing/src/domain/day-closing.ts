/** A branch's day and its close: the cash counted per user, and every close and reopening. */
import type { Caller } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';

/** One user's cash at a closing: what the ledger expects, and what was counted (null: not counted). */
export interface CashCountDoc {
  user_id: number | string;
  expected_cents: Cents;
  counted_cents: Cents | null;
}

export interface ClosingEventDoc {
  action: 'closed' | 'reopened';
  at: Date;
  by: Caller;
  reason?: string | null;
  cash?: CashCountDoc[];
}

export interface ClosingDoc {
  _id: string;
  store_id: number;
  date: string;
  status: 'open' | 'closing' | 'closed';
  /** Changed by every write: each write names the version it read (compare-and-set). */
  version: number;
  closed_at: Date | null;
  closed_by: Caller | null;
  cash: CashCountDoc[];
  history: ClosingEventDoc[];
  _event_ids: string[];
}
