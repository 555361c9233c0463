import './tracing';
import { REFUND_ROLES, STAFF_ROLES } from '@clinic/contracts';
import { startService } from '@clinic/service-kit/storage';
import { billingHandlers } from './adapter';
import { AppointmentCancelOperations } from './appointment-cancel';
import { AppointmentPaymentOperations } from './appointment-payments';
import { SlipOperations } from './appointment-slip';
import { BillViews } from './bill-views';
import { BillOperations } from './bills';
import { CatalogueClient } from './catalogue-client';
import { CreditNoteOperations } from './credit-notes';
import { DayCloseOperations } from './day-close';
import { DayEndOperations } from './day-end';
import { BILLING_ENV } from './env';
import { ExportOperations } from './exports';
import { LedgerExportOperations } from './ledger-exports';
import { PaperDesk } from './paper-desk';
import { loadPaperFonts } from './paper/fonts';
import { PaymentOperations } from './payments';
import { ReceiptOperations } from './receipts';
import { BillingReferences } from './references';
import { SessionsClient } from './sessions-client';
import { SettlementOperations } from './session-settlement';
import { BillStorage } from './storage';

void startService({
  name: 'billing',
  env: BILLING_ENV,
  async setup({ db, ids, outbox, clock, refs, nc, cache, log, settings }) {
    const storage = new BillStorage({ db, ids, outbox, cache, clock }, log.child({ component: 'storage' }));
    const [fonts] = await Promise.all([loadPaperFonts(), storage.prepare()]);
    const references = new BillingReferences(refs, cache);
    const views = new BillViews(references, clock);
    refs.onApplied((kind) => references.applied(kind));
    const money = { refundRoles: rolesSetting('REFUND_ROLES', settings.own.REFUND_ROLES, REFUND_ROLES) };
    const sessions = new SessionsClient(nc);
    const desk = new PaperDesk(storage, references, clock);
    return billingHandlers({
      bills: new BillOperations(storage, references, views, new CatalogueClient(nc), clock, {
        cancelReasonRequired: settings.own.CANCEL_REASON_REQUIRED === 'true',
        priceOverrideRoles: rolesSetting('PRICE_OVERRIDE_ROLES', settings.own.PRICE_OVERRIDE_ROLES, STAFF_ROLES),
      }),
      payments: new PaymentOperations(storage, views, clock, money),
      days: new DayCloseOperations(storage, references, clock),
      dayEnd: new DayEndOperations(storage, references, clock, fonts),
      receipts: new ReceiptOperations(storage, desk, fonts),
      creditNotes: new CreditNoteOperations(storage, desk, fonts),
      spreadsheets: new ExportOperations(storage, views),
      ledgerExports: new LedgerExportOperations(storage, references, clock),
      appointments: new AppointmentPaymentOperations(storage, sessions, clock, money),
      cancellations: new AppointmentCancelOperations(storage, sessions, clock, money),
      slips: new SlipOperations(storage, sessions, references, clock, fonts),
      settlements: new SettlementOperations(storage, sessions, references, clock, fonts, money),
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
