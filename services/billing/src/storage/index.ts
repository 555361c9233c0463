/**
 * Billing's storage layer: what the domain code calls, and the one place that
 * knows how bills are laid out, indexed and kept fast on both MongoDB and the
 * embedded server.
 */
import type { Collection, Db } from 'mongodb';
import type { Logger } from '@clinic/service-kit';
import { AuditTrail, type StorageDeps } from '@clinic/service-kit/storage';
import type { BillPayloads } from '../domain/payloads';
import { ensureCatalogueIndexes } from './database-quirks';
import { BillExport } from './bill-export';
import { BILL_NUMBER_MARKS, BillNumbers } from './bill-numbers';
import { BillQueries, branchScope } from './bill-queries';
import { BillWrites } from './bill-writes';
import { CashOfficeStorage } from './cash-office';
import { ChannelingStorage } from './channeling';
import { DayClosings } from './day-closings';
import { DayTotals } from './day-totals';
import { BILL_HISTORY, BILLS } from './documents';
import type { BillDoc } from '../domain/bill';
import { IdempotencyClaims } from './idempotency';
import { DrawerLedger } from './ledger';
import { movesDayTotals, type WrittenBill } from './live-bill-sums';
import { BILLING_INDEX_CATALOGUE } from './index-catalogue';
import { OBSOLETE_BILL_INDEXES } from './indexes';
import { runMigrations } from './migrations';
import { NewBills } from './new-bills';
import { LedgerExport } from './ledger-export';
import { CreditNoteBook } from './credit-note-numbers';
import { PaperPrints } from './paper-prints';

export { branchScope } from './bill-queries';
export { APPOINTMENT_ACCOUNTS } from './appointment-accounts';
export type { AccountMove, AccountOutcome, AccountPlan, AccountView } from './account-writes';
export { settlementOwner } from './settlement-documents';
export type { ShiftContext, ShiftWrite } from './shifts';
export { shiftFence } from './shifts';
export { ledgerOwner } from './money-events';
export { docKey } from './database-quirks';
export type { ApprovalContext } from './approvals';

export class BillStorage {
  readonly queries: BillQueries;
  readonly newBills: NewBills;
  readonly writes: BillWrites;
  readonly claims: IdempotencyClaims;
  /** Every create, update and cancel of a bill, and every payment and refund (see new-bills.ts and bill-writes.ts). */
  readonly history: AuditTrail;
  /** A branch's closed days, which writes of them find closed. */
  readonly closings: DayClosings;
  /** The drawer ledger: an entry for each of the bills' payments and refunds. */
  readonly ledger: DrawerLedger;
  /** The pages of a spreadsheet export. */
  readonly exports: BillExport;
  /** Appointments' accounts and sessions' settlements (channeling), in the same drawer and days. */
  readonly channeling: ChannelingStorage;
  /** The prints of bills' papers (their copies), in the bills' history. */
  readonly prints: PaperPrints;
  /** Credit notes' numbers. */
  readonly creditNotes: CreditNoteBook;
  /** The pages of a ledger export. */
  readonly ledgerExport: LedgerExport;
  /** Cashiers' shifts and their drawers, and approvals. */
  readonly cashOffice: CashOfficeStorage;
  private readonly bills: Collection<BillDoc>;
  private readonly dayTotals: DayTotals;
  private readonly db: Db;

  constructor(
    private readonly deps: StorageDeps,
    private readonly log: Logger,
    /** The events' and history's payloads (events/), written with each change. */
    payloads: BillPayloads,
  ) {
    this.db = deps.db;
    this.bills = deps.db.collection<BillDoc>(BILLS);
    this.dayTotals = new DayTotals(deps.db, this.bills, log);
    this.claims = new IdempotencyClaims(deps.db, this.bills);
    this.queries = new BillQueries(this.bills, this.dayTotals, deps.cache);
    const numbers = new BillNumbers(deps.db.collection(BILL_NUMBER_MARKS), (date) => this.queries.highestSeq(date));
    this.history = new AuditTrail(deps.db, BILL_HISTORY, deps.clock);
    this.closings = new DayClosings(deps.db, deps.outbox, deps.cache);
    this.ledger = new DrawerLedger(deps.db);
    this.exports = new BillExport(this.bills);
    this.channeling = new ChannelingStorage(deps, this.closings, payloads);
    this.prints = new PaperPrints(deps.db, BILL_HISTORY);
    this.creditNotes = new CreditNoteBook(deps.db);
    this.ledgerExport = new LedgerExport(deps.db);
    this.cashOffice = new CashOfficeStorage(deps, this.closings);
    // What every read cached about these bills' branches is stale after a write, and their days' totals unless
    // the write could not change them (a change of notes, say): that spares the write one database round trip.
    const written = async (bills: WrittenBill[]) => {
      await Promise.all([
        this.dayTotals.bumpVersions(bills.filter(movesDayTotals).map(({ doc }) => doc)),
        deps.cache.bump(...bills.map(({ doc }) => branchScope(doc.store_id))),
      ]);
    };
    this.newBills = new NewBills(
      this.bills,
      numbers,
      this.claims,
      this.dayTotals,
      this.history,
      this.closings,
      deps,
      written,
      payloads,
    );
    this.writes = new BillWrites(this.bills, this.history, deps, this.queries, this.closings, written, payloads);
  }

  /**
   * Before a replay answers: its bill's first try may have failed to store its marks, so they are stored again
   * (an acknowledged write is never hidden by a cache).
   */
  markStale(doc: BillDoc): Promise<void> {
    return this.deps.cache.bump(branchScope(doc.store_id));
  }

  /** Indexes (index-catalogue.ts), and the data earlier versions did not keep; before the service takes requests. */
  async prepare(): Promise<void> {
    await ensureCatalogueIndexes(this.db, BILLING_INDEX_CATALOGUE);
    for (const name of OBSOLETE_BILL_INDEXES) await this.bills.dropIndex(name).catch(() => undefined);
    await runMigrations(this.db, this.bills, this.log);
  }
}
