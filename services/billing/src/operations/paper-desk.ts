/**
 * What every paper of a bill needs besides the bill: its branch's
 * letterhead, who is who, its cancellation, and its copy number, which
 * printing it takes (a print is recorded in the bill's history first, so
 * that the copy printed says which copy it is).
 */
import type { Caller, PrintedPaper, ReceiptSize } from '@clinic/contracts';
import { callerOf, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import { copyMark, type Paper, type PrintLog } from '../domain/copies';
import type { Cancellation } from '../domain/credit-notes';
import { letterheadOf, type LetterheadLines } from '../domain/letterhead';
import type { CopyFacts } from '../views/paper/receipt';
import type { BillingReferences } from '../references';
import type { BillStorage } from '../storage';
import type { BillDoc } from '../domain/bill';

export class PaperDesk {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    readonly clock: ClinicClock,
  ) {}

  async letterhead(branchId: number): Promise<LetterheadLines> {
    return letterheadOf(await this.refs.branch(branchId), branchId);
  }

  /** How a paper names users: their name, `User 7` for an unknown one, a text sub as it is, `-` for nobody. */
  async namer(users: Array<number | string | null>): Promise<(user: number | string | null) => string> {
    const names = await this.refs.userNames(users);
    return (user) => (user === null ? '-' : typeof user === 'number' ? (names.get(user) ?? `User ${user}`) : user);
  }

  /** A cancelled bill's cancellation as its history entry has it; null for a live bill. */
  async cancellation(doc: BillDoc): Promise<Cancellation | null> {
    if (!doc.is_deleted) return null;
    const entry = (await this.storage.history.latest([doc.id], 'cancelled')).get(doc.id);
    const at = entry?.at ?? doc.updated_at ?? doc.created_at;
    const made = (entry?.ledger ?? []) as Array<{ id: string }>;
    return {
      billId: doc.id,
      at,
      day: (this.clock.timestamp(at) as string).slice(0, 10),
      by: entry?.by ?? null,
      reason: (entry?.reason as string | null | undefined) ?? null,
      entryIds: made.map((e) => e.id),
    };
  }

  /** Records this print of a paper and answers which copy it is, printed when and by whom. */
  async print(
    ctx: HandlerContext,
    doc: BillDoc,
    paper: PrintedPaper,
    size: ReceiptSize,
    creditNoteNumber?: string,
  ): Promise<CopyFacts & { by: Caller }> {
    const subject = creditNoteNumber ?? String(doc.id);
    return this.printIn(this.storage.prints, ctx, { entityId: doc.id, paper, subject, size, creditNoteNumber });
  }

  /** Records a print in `log` (the history of what is printed) and answers which copy it is, when and by whom. */
  async printIn(
    log: PrintLog,
    ctx: HandlerContext,
    print: { entityId: number; paper: Paper; subject: string; size: string; creditNoteNumber?: string },
  ): Promise<CopyFacts & { by: Caller }> {
    const by = callerOf(ctx);
    const { copy, at } = await log.record({ ...print, by, correlationId: ctx.correlationId });
    const nameOf = await this.namer([by.sub]);
    return { mark: copyMark(copy), printedAt: this.clock.timestamp(at) as string, printedBy: nameOf(by.sub), by };
  }
}
