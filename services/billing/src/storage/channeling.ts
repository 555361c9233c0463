/**
 * Channeling's money in billing's storage: appointments'
 * accounts and sessions' settlements, with their audit trails. The drawer
 * (bill_ledger) and the closed days are the bills' own, shared.
 */
import { AuditTrail, type StorageDeps } from '@clinic/service-kit/storage';
import { AccountWrites } from './account-writes';
import { AccountQueries, APPOINTMENT_HISTORY } from './appointment-accounts';
import type { BillPayloads } from '../domain/payloads';
import type { DayClosings } from './day-closings';
import { PaperPrints } from './paper-prints';
import { SETTLEMENT_HISTORY } from './settlement-documents';
import { Settlements } from './settlements';

export class ChannelingStorage {
  readonly accounts: AccountQueries;
  readonly accountWrites: AccountWrites;
  readonly settlements: Settlements;
  /** Every payment, refund and cancellation of an appointment (entity: the appointment's id). */
  readonly appointmentHistory: AuditTrail;
  /** Every settlement and reversal (entity: the session's id). */
  readonly settlementHistory: AuditTrail;
  /** The prints of appointments' slips and of settlement sheets, in those histories. */
  readonly slipPrints: PaperPrints;
  readonly sheetPrints: PaperPrints;

  constructor(deps: StorageDeps, closings: DayClosings, payloads: BillPayloads) {
    this.accounts = new AccountQueries(deps.db);
    this.appointmentHistory = new AuditTrail(deps.db, APPOINTMENT_HISTORY, deps.clock);
    this.settlementHistory = new AuditTrail(deps.db, SETTLEMENT_HISTORY, deps.clock);
    this.slipPrints = new PaperPrints(deps.db, APPOINTMENT_HISTORY);
    this.sheetPrints = new PaperPrints(deps.db, SETTLEMENT_HISTORY);
    this.settlements = new Settlements(deps.db, deps.outbox, closings, this.settlementHistory);
    this.accountWrites = new AccountWrites(
      this.accounts,
      this.appointmentHistory,
      deps,
      closings,
      this.settlements,
      payloads,
    );
  }
}
