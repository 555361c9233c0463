/** A date range as whole months and the days around them (the day totals read months by their tokens). */
import dayjs from 'dayjs';
import type { DateRange } from '../domain/filters';

/** A condition on bill dates. */
export interface DateFilter {
  bill_date: { $gte?: string; $gt?: string; $lt?: string; $lte?: string };
}

/** The first and last month (YYYY-MM) that lie wholly within a date range, or null when none does. */
export function wholeMonthsOf(range: DateRange): { first: string; last: string } | null {
  if (range.date) return null;
  const from = range.from_date ? dayjs(range.from_date) : null;
  const to = range.to_date ? dayjs(range.to_date) : null;
  const first = !from ? '0000-01' : from.date() === 1 ? from.format('YYYY-MM') : from.add(1, 'month').format('YYYY-MM');
  const last = !to
    ? '9999-12'
    : to.date() === to.daysInMonth()
      ? to.format('YYYY-MM')
      : to.subtract(1, 'month').format('YYYY-MM');
  return first <= last ? { first, last } : null;
}

/** The date conditions of the range's days before and after its whole months. */
export function outsideWholeMonths(range: DateRange, whole: { first: string; last: string }): DateFilter[] {
  const conditions: DateFilter[] = [];
  const wholeStart = `${whole.first}-01`;
  const wholeEnd = `${whole.last}-31`;
  if (range.from_date && range.from_date < wholeStart)
    conditions.push({ bill_date: { $gte: range.from_date, $lt: wholeStart } });
  if (range.to_date && range.to_date > wholeEnd) conditions.push({ bill_date: { $gt: wholeEnd, $lte: range.to_date } });
  return conditions;
}

export const monthCondition = (month: string): DateFilter => ({
  bill_date: { $gte: `${month}-01`, $lte: `${month}-31` },
});
