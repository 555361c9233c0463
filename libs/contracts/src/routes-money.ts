/**
 * The routes of a bill's payments and refunds and of a branch's closed day
 *, part of HTTP_ROUTES (routes.ts).
 */
import type { HttpRoute } from './http-route';
import {
  balanceProperties,
  closingSchema,
  dayCloseBodySchema,
  dayQuerySchema,
  ledgerEntrySchema,
  paymentBodySchema,
  refundBodySchema,
  reopenDayBodySchema,
} from './schemas/billing-money';
import { billWithItemsSchema } from './schemas/billing-replies';
import { idSchema, successSchema } from './schemas/common';
import { standardFailures } from './schemas/failures';
import { BillingSubjects } from './subjects';

const changed = (entry: 'payment' | 'refund') =>
  successSchema({ message: { type: 'string' }, [entry]: ledgerEntrySchema, bill: billWithItemsSchema });

/** Routes without their access, which routes.ts adds from the subject (access.ts). A bill's money: */
export const BILL_MONEY_ROUTES: ReadonlyArray<Omit<HttpRoute, 'access'>> = [
  {
    operationId: 'recordLabBillPayment',
    method: 'POST',
    url: '/lab_bills/:bill_id/payments',
    subject: BillingSubjects.pay,
    branchScope: 'record',
    tag: 'Lab bills',
    summary:
      'Record a payment towards a bill, taken by the caller; a split payment is several. Send an Idempotency-Key header to make retries safe.',
    param: 'bill_id',
    body: paymentBodySchema,
    idempotent: true,
    responses: { 201: changed('payment'), ...standardFailures(404, 409, 413, 422) },
  },
  {
    operationId: 'listLabBillPayments',
    method: 'GET',
    url: '/lab_bills/:bill_id/payments',
    subject: BillingSubjects.payments,
    branchScope: 'record',
    tag: 'Lab bills',
    summary: "A bill's ledger, oldest first: its payments, refunds and reversals, who, when, method, reference, reason",
    param: 'bill_id',
    responses: {
      200: successSchema({
        bill_id: idSchema,
        bill_number: { type: 'string' },
        ...balanceProperties,
        ledger: { type: 'array', items: ledgerEntrySchema },
      }),
      ...standardFailures(404),
    },
  },
  {
    operationId: 'refundLabBill',
    method: 'POST',
    url: '/lab_bills/:bill_id/refunds',
    subject: BillingSubjects.refund,
    branchScope: 'record',
    tag: 'Lab bills',
    summary:
      'Give money of a bill back, with a reason (admin, cashier; REFUND_ROLES narrows it); the bill stays. Send an Idempotency-Key header to make retries safe.',
    param: 'bill_id',
    body: refundBodySchema,
    idempotent: true,
    responses: { 201: changed('refund'), ...standardFailures(404, 409, 413, 422) },
  },
];

/** A branch's closed day: static paths, listed before `/lab_bills/:bill_id` (the router prefers them anyway). */
export const DAY_CLOSE_ROUTES: ReadonlyArray<Omit<HttpRoute, 'access'>> = [
  {
    operationId: 'closeDay',
    method: 'POST',
    url: '/lab_bills/day_close',
    subject: BillingSubjects.closeDay,
    branchScope: 'named',
    tag: 'Lab bills',
    summary:
      "Close a branch's day (admin): expected against counted cash per user; bills of the day and money moving on it are then refused",
    body: dayCloseBodySchema,
    responses: {
      201: successSchema({ message: { type: 'string' }, closing: closingSchema }),
      ...standardFailures(404, 409, 413),
    },
  },
  {
    operationId: 'getDayClose',
    method: 'GET',
    url: '/lab_bills/day_close',
    subject: BillingSubjects.dayClosing,
    branchScope: 'named',
    tag: 'Lab bills',
    summary: "Whether a branch's day is closed, its counted cash, and every closing and reopening of it",
    querystring: dayQuerySchema,
    responses: { 200: successSchema({ closing: closingSchema }), ...standardFailures() },
  },
  {
    operationId: 'reopenDay',
    method: 'DELETE',
    url: '/lab_bills/day_close',
    subject: BillingSubjects.reopenDay,
    branchScope: 'named',
    tag: 'Lab bills',
    summary: "Reopen a branch's closed day (admin), with a reason",
    querystring: dayQuerySchema,
    body: reopenDayBodySchema,
    responses: {
      200: successSchema({ message: { type: 'string' }, closing: closingSchema }),
      ...standardFailures(409, 413),
    },
  },
];
