/**
 * The printed day-end's last part: the day's close as it stands,
 * each user's counted cash against the ledger's with what was over or short,
 * who closed it and when, then the signature lines, kept on one page with it.
 */
import { toCents } from '@clinic/service-kit';
import type { DayEndClosing } from '../closing-view';
import type { PageWriter } from './page-writer';
import { formatAmount } from './receipt';
import { columns, table } from './tables';

const amount = (value: number | null) => (value === null ? '-' : formatAmount(toCents(value)));

export function layOutClosing(
  w: PageWriter,
  closing: DayEndClosing,
  nameOf: (user: number | string) => string,
  signatures: readonly string[],
): void {
  w.together(() => {
    const row = columns([0.28, 0.18, 0.18, 0.18, 0.18], [4]);
    if (closing.status !== 'closed') {
      table(w, 'Closing', [], [], `Not closed (${closing.status}): the figures above may still change.`);
    } else {
      const cash = closing.cash;
      const sum = (pick: (c: (typeof cash)[number]) => number | null) =>
        cash.reduce((total, c) => total + toCents(pick(c) ?? 0), 0) / 100;
      table(
        w,
        `Closing: closed ${closing.closed_at} by ${closing.closed_by ? nameOf(closing.closed_by.sub) : '-'}`,
        row(['User', 'Expected cash', 'Counted', 'Over/short', 'Outcome']),
        [
          ...cash.map((c) =>
            row([
              c.user_name ?? String(c.user_id),
              amount(c.expected),
              amount(c.counted),
              amount(c.difference),
              c.outcome,
            ]),
          ),
          row([
            'All users',
            amount(sum((c) => c.expected)),
            amount(sum((c) => c.counted)),
            amount(sum((c) => c.difference)),
            '',
          ]),
        ],
        'No cash was expected or counted.',
      );
      const counted = cash.filter((c) => c.counted !== null).length;
      w.paragraph(
        `Counted ${counted} of ${cash.length} drawers; ${cash.filter((c) => c.outcome === 'over').length} over, ${cash.filter((c) => c.outcome === 'short').length} short.`,
      );
    }
    w.signatures(signatures, 28);
  });
}
