/**
 * An export's cells, from the values of billing's rows (as the list shows
 * them: amounts as numbers, dates as `YYYY-MM-DD`, times as `YYYY-MM-DD
 * HH:mm:ss` in the clinic's zone). Pure.
 */
import type { ExportColumn, ExportColumnType } from '@clinic/contracts';

/**
 * Text a spreadsheet would take for a formula (OWASP, CSV injection): =, @,
 * a tab, a CR or an LF first, or + or - before anything but a plain number
 * (`-2+3` is a formula; `+94712223344`, a phone number, is a number, shown
 * as written in the text cell of Excel's files, and guarded by nothing here).
 * Only text columns are neutralised: a number such as -500.00 in an amount
 * column is data. The quoting of a field with a line break in it is the CSV
 * writer's (export.ts): a reader that splits it takes no new row.
 */
const FORMULA_START = /^[=@\t\r\n]|^[+-](?![0-9]+(\.[0-9]+)?$)/;

export function cellForCsv(column: ExportColumn, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (column.type === 'money') return Number(value).toFixed(2);
  const text = String(value);
  return column.type === 'text' && FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * Excel's own types: numbers, and dates as Excel dates (its clock has no
 * zone: the clinic's wall time is written as it reads). Text stays a string
 * cell, which Excel never evaluates, so it is written as it is.
 */
export function cellForExcel(column: ExportColumn, value: unknown): string | number | Date | null {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'text':
      return String(value);
    case 'date':
    case 'datetime': {
      const [y, m, d, h = 0, min = 0, s = 0] = String(value).split(/[- :]/).map(Number) as number[];
      return new Date(Date.UTC(y!, m! - 1, d!, h, min, s));
    }
    default:
      return Number(value);
  }
}

export const EXCEL_FORMATS: Record<ExportColumnType, { numFmt?: string }> = {
  text: {},
  integer: { numFmt: '0' },
  number: {},
  money: { numFmt: '#,##0.00' },
  date: { numFmt: 'yyyy-mm-dd' },
  datetime: { numFmt: 'yyyy-mm-dd hh:mm:ss' },
};
