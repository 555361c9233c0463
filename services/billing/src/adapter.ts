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
    [BillingSubjects.list]: (req, ctx) => bills.list(req, ctx),
    [BillingSubjects.summary]: (req, ctx) => bills.summary(req, ctx),
    [BillingSubjects.get]: (req, ctx) => bills.get(req, ctx),
    [BillingSubjects.update]: (req, ctx) => bills.update(req, ctx),
    [BillingSubjects.cancel]: (req, ctx) => bills.cancel(req, ctx),
    [BillingSubjects.history]: (req, ctx) => bills.history(req, ctx),
    [BillingSubjects.dayEnd]: (req, ctx) => bills.dayEnd(req, ctx),
    [BillingSubjects.receipt]: (req, ctx) => bills.receipt(req, ctx),
    [BillingSubjects.pay]: (req, ctx) => payments.pay(req, ctx),
    [BillingSubjects.refund]: (req, ctx) => payments.refund(req, ctx),
    [BillingSubjects.payments]: (req, ctx) => payments.ledger(req, ctx),
    [BillingSubjects.closeDay]: (req, ctx) => days.close(req, ctx),
    [BillingSubjects.dayClosing]: (req, ctx) => days.get(req, ctx),
    [BillingSubjects.reopenDay]: (req, ctx) => days.reopen(req, ctx),
  };
}
