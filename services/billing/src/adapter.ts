/** The NATS side of billing: one handler per subject. */
import { BillingSubjects } from '@clinic/contracts';
import type { Handler } from '@clinic/service-kit';
import type { BillOperations } from './bills';
import type { DayCloseOperations } from './day-close';
import type { PaymentOperations } from './payments';

export function billingHandlers(
  bills: BillOperations,
  payments: PaymentOperations,
  days: DayCloseOperations,
): Record<string, Handler> {
  return {
    [BillingSubjects.create]: (req, ctx) => bills.create(req, ctx),
    [BillingSubjects.list]: (req) => bills.list(req),
    [BillingSubjects.summary]: (req) => bills.summary(req),
    [BillingSubjects.get]: (req) => bills.get(req),
    [BillingSubjects.update]: (req, ctx) => bills.update(req, ctx),
    [BillingSubjects.cancel]: (req, ctx) => bills.cancel(req, ctx),
    [BillingSubjects.history]: (req) => bills.history(req),
    [BillingSubjects.dayEnd]: (req) => bills.dayEnd(req),
    [BillingSubjects.receipt]: (req) => bills.receipt(req),
    [BillingSubjects.pay]: (req, ctx) => payments.pay(req, ctx),
    [BillingSubjects.refund]: (req, ctx) => payments.refund(req, ctx),
    [BillingSubjects.payments]: (req) => payments.ledger(req),
    [BillingSubjects.closeDay]: (req, ctx) => days.close(req, ctx),
    [BillingSubjects.dayClosing]: (req) => days.get(req),
    [BillingSubjects.reopenDay]: (req, ctx) => days.reopen(req, ctx),
  };
}
