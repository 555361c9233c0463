/** Tables of the A4 reports: columns from their widths, and a titled table whose heading repeats on each page. */
import type { Cell, PageWriter } from './page-writer';

/** Columns from their widths (fractions of the text width): text ones (the first, and `text`) left-aligned, figures right. */
export function columns(widths: number[], text: number[] = []): (texts: string[]) => Cell[] {
  return (texts) => {
    let from = 0;
    return texts.map((content, i) => {
      const align = i === 0 || text.includes(i) ? 'left' : 'right';
      const cell: Cell = { text: content, from, to: Math.min(1, from + widths[i]!), align };
      from = cell.to;
      return cell;
    });
  };
}

/** A table: its heading row, repeated at the top of every page it runs over. */
export function table(w: PageWriter, title: string, heading: Cell[], rows: Cell[][], empty: string): void {
  w.gap(4);
  w.paragraph(title, { bold: true, size: 11 });
  if (rows.length === 0) {
    w.paragraph(empty);
    return;
  }
  const before = w.onNewPage;
  w.onNewPage = () => {
    before();
    w.row(heading, { bold: true });
  };
  w.row(heading, { bold: true });
  w.rule();
  for (const row of rows) w.row(row);
  w.onNewPage = before;
}
