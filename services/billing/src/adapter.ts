/** The NATS side of billing: one handler per subject. */
import { BillingSubjects } from '@clinic/contracts';
import type { Handler } from '@clinic/service-kit';
import type { BillOperations } from './bills';

export function billingHandlers(bills: BillOperations): Record<string, Handler> {
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
  };
}
