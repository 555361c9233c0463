import './tracing';
import { REFUND_ROLES, STAFF_ROLES } from '@clinic/contracts';
import { startService } from '@clinic/service-kit/storage';
import { billingHandlers } from './adapter';
import { AppointmentCancelOperations } from './operations/appointment-cancel';
import { AppointmentPaymentOperations } from './operations/appointment-payments';
import { SlipOperations } from './operations/appointment-slip';
import { BillViews } from './views/bill-views';
import { BillOperations } from './operations/bills';
import { CatalogueClient } from './catalogue-client';
import { CreditNoteOperations } from './operations/credit-notes';
import { DayCloseOperations } from './operations/day-close';
import { DayEndOperations } from './operations/day-end';
import type { Controls } from './domain/approvals';
import { BILLING_ENV } from './env';
import { ExportOperations } from './operations/exports';
import { LedgerExportOperations } from './operations/ledger-exports';
import { PaperDesk } from './operations/paper-desk';
import { loadPaperFonts } from './views/paper/fonts';
import { PaymentOperations } from './operations/payments';
import { ReceiptOperations } from './operations/receipts';
import { BillingReferences } from './references';
import { SessionsClient } from './sessions-client';
import { SettlementOperations } from './operations/session-settlement';
import { BillStorage } from './storage';
import { BILL_PAYLOADS } from './events/bill-events';
import { ApprovalOperations } from './operations/approvals';
import { CashOffice } from './operations/cash-office';
import { CashOfficeSection } from './operations/day-end-cash-office';
import { ShiftCloseOperations } from './operations/shift-close';
import { ShiftOperations } from './operations/shifts';

void startService({
  name: 'billing',
  env: BILLING_ENV,
  async setup({ db, ids, outbox, clock, refs, nc, cache, log, settings }) {
    const storage = new BillStorage(
      { db, ids, outbox, cache, clock },
      log.child({ component: 'storage' }),
      BILL_PAYLOADS,
    );
    const [fonts] = await Promise.all([loadPaperFonts(), storage.prepare()]);
    const references = new BillingReferences(refs, cache);
    const views = new BillViews(references, clock);
    refs.onApplied((kind) => references.applied(kind));
    const money = { refundRoles: rolesSetting('REFUND_ROLES', settings.own.REFUND_ROLES, REFUND_ROLES) };
    const sessions = new SessionsClient(nc);
    const office = new CashOffice(storage, references, clock, {
      shifts: settings.own.CASH_SHIFTS === 'on',
      moneyNeedsStaff: settings.own.MONEY_NEEDS_STAFF === 'true',
    });
    const approvals = new ApprovalOperations(storage, references, clock);
    const desk = { office, approvals, controls: controlsOf(settings.own) };
    const shifts = new ShiftOperations(storage, references, office, clock);
    const paperDesk = new PaperDesk(storage, references, clock);
    return billingHandlers({
      bills: new BillOperations(
        storage,
        references,
        views,
        new CatalogueClient(nc),
        clock,
        {
          cancelReasonRequired: settings.own.CANCEL_REASON_REQUIRED === 'true',
          priceOverrideRoles: rolesSetting('PRICE_OVERRIDE_ROLES', settings.own.PRICE_OVERRIDE_ROLES, STAFF_ROLES),
        },
        desk,
      ),
      payments: new PaymentOperations(storage, views, clock, money, desk),
      days: new DayCloseOperations(storage, references, clock, office),
      dayEnd: new DayEndOperations(
        storage,
        references,
        clock,
        fonts,
        new CashOfficeSection(storage, references, clock),
      ),
      receipts: new ReceiptOperations(storage, paperDesk, fonts),
      creditNotes: new CreditNoteOperations(storage, paperDesk, fonts),
      spreadsheets: new ExportOperations(storage, views),
      ledgerExports: new LedgerExportOperations(storage, references, clock),
      appointments: new AppointmentPaymentOperations(storage, sessions, clock, money, office),
      cancellations: new AppointmentCancelOperations(storage, sessions, clock, money, office),
      slips: new SlipOperations(storage, sessions, references, paperDesk, fonts),
      settlements: new SettlementOperations(storage, sessions, clock, fonts, money, office, paperDesk),
      shifts,
      shiftEnds: new ShiftCloseOperations(shifts),
      approvals,
    });
  },
});

/**
 * A list of roles from the environment, within `allowed` (what the route's
 * access lets through at all): a setting that names another role stops the
 * service at start-up rather than silently granting or refusing nothing.
 */
function rolesSetting(name: string, value: string, allowed: readonly string[]): string[] {
  const roles = value
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  const unknown = roles.filter((role) => !allowed.includes(role));
  if (roles.length === 0 || unknown.length > 0)
    throw new Error(`${name} must list some of ${allowed.join(', ')} (comma-separated), got "${value}"`);
  return roles;
}

/** The controls the clinic switched on (each off by default, as the spec has it). */
function controlsOf(own: { [K in keyof typeof BILLING_ENV]: unknown }): Controls {
  return {
    priceOverride: own.APPROVE_PRICE_OVERRIDE === 'true',
    discountAbovePct: percentSetting('APPROVE_DISCOUNT_ABOVE_PCT', own.APPROVE_DISCOUNT_ABOVE_PCT),
    billDate: own.APPROVE_BILL_DATE === 'true',
    refundTender: own.APPROVE_REFUND_TENDER === 'true',
    receivedShort: own.APPROVE_CASH_SHORT === 'true',
  };
}

/** A percentage from the environment (unset: null); another value stops the service at start-up. */
function percentSetting(name: string, value: unknown): number | null {
  if (value === undefined) return null;
  if (typeof value !== 'number' || value < 0 || value > 100)
    throw new Error(`${name} must be 0 to 100, got "${value}"`);
  return value;
}
