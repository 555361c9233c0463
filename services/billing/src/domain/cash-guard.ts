/** With shifts on, what a write that moves money checks of the shift whose drawer it moves in. */
import type { Cents } from '@clinic/service-kit';

/** What a write moving money in a shift's drawer adds to its own steps (RecordWrite.guard, EventSpec.fences). */
export interface CashGuard {
  fences: string[];
  guard(): Promise<void>;
  /** Gives back the holds this guard took whose entries did not land (`landed`: the entries of the write that did). */
  release(landed: readonly string[]): Promise<void>;
}

/** Cash going out of the drawer: a ledger entry's id and amount. */
export interface CashOut {
  id: string;
  amount_cents: Cents;
}
