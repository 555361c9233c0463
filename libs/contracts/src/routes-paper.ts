/** The credit notes of a bill: a refund's slip and a cancelled bill's slip, part of HTTP_ROUTES. */
import type { HttpRoute } from './http-route';
import { billingExtraResponses } from './schemas/billing-replies';
import { standardFailures } from './schemas/failures';
import { cancellationSlipQuerySchema, refundSlipQuerySchema } from './schemas/paper';
import { BillingSubjects } from './subjects';

export const CREDIT_NOTE_ROUTES: ReadonlyArray<Omit<HttpRoute, 'access'>> = [
  {
    operationId: 'getLabBillRefundSlip',
    method: 'GET',
    url: '/lab_bills/:bill_id/refund_slip',
    branchScope: 'record',
    subject: BillingSubjects.refundSlip,
    tag: 'Lab bills',
    summary:
      "A refund's credit note (PDF): its own number, the original bill, the amount, method, reason, who gave it back and when; every print after the first is marked DUPLICATE n",
    param: 'bill_id',
    querystring: refundSlipQuerySchema,
    produces: 'application/pdf',
    responses: { 200: billingExtraResponses.receipt, ...standardFailures(400, 404, 413) },
  },
  {
    operationId: 'getLabBillCancellationSlip',
    method: 'GET',
    url: '/lab_bills/:bill_id/cancellation_slip',
    branchScope: 'record',
    subject: BillingSubjects.cancellationSlip,
    tag: 'Lab bills',
    summary:
      "A cancelled bill's credit note (PDF): its own number, the original bill, what was given back and in which methods, the reason, who cancelled it and when",
    param: 'bill_id',
    querystring: cancellationSlipQuerySchema,
    produces: 'application/pdf',
    responses: { 200: billingExtraResponses.receipt, ...standardFailures(400, 404, 413) },
  },
];
