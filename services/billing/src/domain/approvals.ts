/**
 * Approvals: what a clinic's controls refuse (each control a
 * setting, off by default) and the admin's approval that lets it through
 * once. The model, what each control finds in a request, and whether an
 * approval covers it. Pure rules; no I/O.
 */
import stableStringify from 'safe-stable-stringify';
import {
  APPROVAL_MESSAGES,
  type ApprovalRule,
  type ApprovalStatus,
  type ApprovalTarget,
  type Caller,
  type DiscountType,
  type PaymentMethod,
  type PaymentStatus,
} from '@clinic/contracts';
import { fail, fromCents, nullableAmount, type Cents } from '@clinic/service-kit';

/** One thing a control found, as the refusal names it and an approval covers it (amounts as the API writes them). */
export interface ApprovalCheck {
  rule: ApprovalRule;
  details: Record<string, unknown>;
}

/** Who asked or decided: the token's claims and the staff user it maps to. */
export interface StaffActor extends Caller {
  user_id: number | null;
}

export interface Approval {
  id: number;
  store_id: number;
  /** The clinic's day it was asked for: the day-end that lists it. */
  day: string;
  status: ApprovalStatus;
  checks: ApprovalCheck[];
  reason: string;
  requested_by: StaffActor;
  requested_at: Date;
  decided_by: StaffActor | null;
  decided_at: Date | null;
  note: string | null;
  used: { target: ApprovalTarget; id: string; at: Date; by: Caller } | null;
}

/** An approval as stored: changed only by compare-and-set writes of its version. */
export interface ApprovalDoc extends Approval {
  _id: string;
  version: number;
  _event_ids: string[];
}

/** The controls a clinic switched on (BILLING_ENV; catalogue's own in its service). */
export interface Controls {
  priceOverride: boolean;
  /** A discount above this percentage of the subtotal needs approval; null: any discount passes. */
  discountAbovePct: number | null;
  billDate: boolean;
  refundTender: boolean;
  receivedShort: boolean;
}

export const NO_CONTROLS: Controls = {
  priceOverride: false,
  discountAbovePct: null,
  billDate: false,
  refundTender: false,
  receivedShort: false,
};

/** What the controls read of a new bill. */
export interface BillUnderControl {
  bill_date: string;
  payment_method: PaymentMethod;
  payment_status: PaymentStatus;
  discount_type: DiscountType;
  discount_value: number;
  received_cents: Cents | null;
  items: ReadonlyArray<{ charge_id: number; unit_price_cents: Cents }>;
}

/** What the controls refuse of a new bill, given its totals, the catalogue's prices and the clinic's today. */
export function billChecks(
  bill: BillUnderControl,
  totals: { subtotal: Cents; discount: Cents; grand_total: Cents },
  catalogue: ReadonlyMap<number, Cents>,
  today: string,
  controls: Controls,
): ApprovalCheck[] {
  const checks: ApprovalCheck[] = [];
  if (controls.priceOverride) {
    const seen = new Set<string>();
    for (const item of bill.items) {
      const catalogued = catalogue.get(item.charge_id) ?? 0;
      const key = `${item.charge_id}:${item.unit_price_cents}`;
      if (item.unit_price_cents === catalogued || seen.has(key)) continue;
      seen.add(key);
      checks.push({
        rule: 'price_override',
        details: {
          charge_id: item.charge_id,
          catalogue_price: fromCents(catalogued),
          unit_price: fromCents(item.unit_price_cents),
        },
      });
    }
  }
  const limit = controls.discountAbovePct;
  if (limit !== null && totals.discount > 0 && totals.discount * 100 > limit * totals.subtotal) {
    checks.push({
      rule: 'discount_above_pct',
      details: {
        discount_type: bill.discount_type,
        discount_value: bill.discount_value,
        discount_amount: fromCents(totals.discount),
        subtotal: fromCents(totals.subtotal),
        limit_pct: limit,
      },
    });
  }
  if (controls.billDate && bill.bill_date !== today)
    checks.push({ rule: 'bill_date', details: { bill_date: bill.bill_date, today } });
  const cashPaid = bill.payment_method === 'Cash' && bill.payment_status === 'Paid';
  if (controls.receivedShort && cashPaid && bill.received_cents !== null && bill.received_cents < totals.grand_total)
    checks.push({
      rule: 'received_short',
      details: { grand_total: fromCents(totals.grand_total), received_amount: nullableAmount(bill.received_cents) },
    });
  return checks;
}

/** A refund in another tender than any the money is held in. */
export function refundChecks(
  refund: { owner: string; method: PaymentMethod },
  heldIn: readonly PaymentMethod[],
  controls: Controls,
): ApprovalCheck[] {
  if (!controls.refundTender || heldIn.length === 0 || heldIn.includes(refund.method)) return [];
  return [{ rule: 'refund_tender', details: { refund_of: refund.owner, method: refund.method, paid_in: [...heldIn] } }];
}

const canonical = (check: ApprovalCheck) => stableStringify({ rule: check.rule, details: check.details }) ?? '';

/** Whether every check needed is among the approval's, as it was given (its details compared whole). */
export function covers(approved: readonly ApprovalCheck[], needed: readonly ApprovalCheck[]): boolean {
  const given = new Set(approved.map(canonical));
  return needed.every((check) => given.has(canonical(check)));
}

/** 409 unless the approval is approved, of the branch, and covers what is needed. */
export function assertUsable(approval: Approval, storeId: number, needed: readonly ApprovalCheck[]): void {
  if (approval.status !== 'approved')
    throw fail('APPROVAL_NOT_USABLE', APPROVAL_MESSAGES.notUsable(approval.id, approval.status));
  if (approval.store_id !== storeId || !covers(approval.checks, needed))
    throw fail('APPROVAL_NOT_USABLE', APPROVAL_MESSAGES.notCovering(approval.id));
}
