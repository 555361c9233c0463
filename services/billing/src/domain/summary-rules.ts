/** The revenue summary and the day's groups of live bills, as pure sums over the groups storage reads. */
import { PAYMENT_METHODS, PAYMENT_STATUSES, type PaymentMethod, type PaymentStatus } from '@clinic/contracts';
import { fromCents, type Cents } from '@clinic/service-kit';

/** The live bills of some days with one payment method and status. */
export interface BillGroup {
  payment_method: PaymentMethod;
  payment_status: PaymentStatus;
  count: number;
  grand_total: Cents;
  discount: Cents;
  subtotal: Cents;
}

/** Groups of the same payment method and status added together. */
export function sumGroups(lists: BillGroup[][]): BillGroup[] {
  const sums = new Map<string, BillGroup>();
  for (const group of lists.flat()) {
    const key = `${group.payment_method}|${group.payment_status}`;
    const sum = sums.get(key) ?? { ...group, count: 0, grand_total: 0, discount: 0, subtotal: 0 };
    sum.count += group.count;
    sum.grand_total += group.grand_total;
    sum.discount += group.discount;
    sum.subtotal += group.subtotal;
    sums.set(key, sum);
  }
  return [...sums.values()];
}

/** The live bills of one date with one cashier, payment method and status. */
export interface CashierGroup extends BillGroup {
  billed_by: number | null;
}

export interface Summary {
  total_bills: number;
  paid_count: number;
  pending_count: number;
  cash_count: number;
  card_count: number;
  online_count: number;
  total_revenue: number;
  total_discounts: number;
  total_subtotal: number;
  cash_revenue: number;
  card_revenue: number;
  online_revenue: number;
}

export function summarize(groups: BillGroup[]): Summary {
  const count = (pick: (g: (typeof groups)[number]) => boolean) => groups.filter(pick).reduce((n, g) => n + g.count, 0);
  const revenue = (method: PaymentMethod) =>
    fromCents(groups.filter((g) => g.payment_method === method).reduce((n, g) => n + g.grand_total, 0));
  const sum = (field: 'grand_total' | 'discount' | 'subtotal') => fromCents(groups.reduce((n, g) => n + g[field], 0));
  const [paid, pending] = PAYMENT_STATUSES;
  const [cash, card, online] = PAYMENT_METHODS;
  return {
    total_bills: count(() => true),
    paid_count: count((g) => g.payment_status === paid),
    pending_count: count((g) => g.payment_status === pending),
    cash_count: count((g) => g.payment_method === cash),
    card_count: count((g) => g.payment_method === card),
    online_count: count((g) => g.payment_method === online),
    total_revenue: sum('grand_total'),
    total_discounts: sum('discount'),
    total_subtotal: sum('subtotal'),
    cash_revenue: revenue(cash),
    card_revenue: revenue(card),
    online_revenue: revenue(online),
  };
}
