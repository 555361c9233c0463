/** The NATS side of billing: one handler per subject. */
import { BillingSubjects } from '@clinic/contracts';
import { type Handler, subjectHandlers } from '@clinic/service-kit';
import type { AppointmentCancelOperations } from './operations/appointment-cancel';
import type { AppointmentPaymentOperations } from './operations/appointment-payments';
import type { SlipOperations } from './operations/appointment-slip';
import type { BillOperations } from './operations/bills';
import type { CreditNoteOperations } from './operations/credit-notes';
import type { DayCloseOperations } from './operations/day-close';
import type { DayEndOperations } from './operations/day-end';
import type { ExportOperations } from './operations/exports';
import type { LedgerExportOperations } from './operations/ledger-exports';
import type { PaymentOperations } from './operations/payments';
import type { ReceiptOperations } from './operations/receipts';
import type { ApprovalOperations } from './operations/approvals';
import type { ShiftCloseOperations } from './operations/shift-close';
import type { ShiftOperations } from './operations/shifts';
import type { SettlementOperations } from './operations/session-settlement';

export interface BillingOperations {
  bills: BillOperations;
  payments: PaymentOperations;
  days: DayCloseOperations;
  dayEnd: DayEndOperations;
  receipts: ReceiptOperations;
  /** Credit notes: a refund's slip, a cancelled bill's slip. */
  creditNotes: CreditNoteOperations;
  spreadsheets: ExportOperations;
  ledgerExports: LedgerExportOperations;
  /** Channeling's money: appointments' payments, refunds, cancellations, slips; sessions' settlements. */
  appointments: AppointmentPaymentOperations;
  cancellations: AppointmentCancelOperations;
  slips: SlipOperations;
  settlements: SettlementOperations;
  /** The cash office: shifts, their ends, approvals. */
  shifts: ShiftOperations;
  shiftEnds: ShiftCloseOperations;
  approvals: ApprovalOperations;
}

export function billingHandlers(operations: BillingOperations): Record<string, Handler> {
  const { bills, payments, days, dayEnd, receipts, creditNotes, spreadsheets, ledgerExports } = operations;
  const { appointments, cancellations, slips, settlements, shifts, shiftEnds, approvals } = operations;
  return {
    ...subjectHandlers(BillingSubjects, bills, ['create', 'list', 'summary', 'get', 'update', 'cancel', 'history']),
    ...subjectHandlers(BillingSubjects, dayEnd, ['dayEnd']),
    ...subjectHandlers(BillingSubjects, receipts, ['receipt']),
    ...subjectHandlers(BillingSubjects, creditNotes, ['refundSlip', 'cancellationSlip']),
    ...subjectHandlers(BillingSubjects, spreadsheets, { export: 'page' }),
    ...subjectHandlers(BillingSubjects, ledgerExports, ['ledgerExport']),
    ...subjectHandlers(BillingSubjects, payments, { pay: 'pay', refund: 'refund', payments: 'ledger' }),
    ...subjectHandlers(BillingSubjects, days, { closeDay: 'close', dayClosing: 'get', reopenDay: 'reopen' }),
    ...subjectHandlers(BillingSubjects, appointments, [
      'appointmentPay',
      'appointmentRefund',
      'appointmentPayments',
      'appointmentBalances',
    ]),
    ...subjectHandlers(BillingSubjects, cancellations, ['appointmentCancel']),
    ...subjectHandlers(BillingSubjects, slips, ['appointmentSlip']),
    ...subjectHandlers(BillingSubjects, settlements, ['settle', 'settlement', 'reverseSettlement']),
    ...subjectHandlers(BillingSubjects, shifts, ['openShift', 'shifts', 'shift', 'dropCash', 'payOutCash']),
    ...subjectHandlers(BillingSubjects, shiftEnds, ['closeShift', 'signOffShift', 'handOverShift', 'acceptHandover']),
    ...subjectHandlers(BillingSubjects, approvals, [
      'requestApproval',
      'approvals',
      'approval',
      'approve',
      'decline',
      'useApproval',
      'releaseApproval',
    ]),
  };
}
