/**
 * A credit note as a PDF, on the receipts' paper: what was given back
 * against which bill, why, by whom and when, under its own number. Pure
 * rendering: the caller gathers the figures (views/credit-note-data.ts).
 */
import type { CreditNoteKind, ReceiptSize } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { LetterheadLines } from '../../domain/letterhead';
import type { PaperFonts } from './fonts';
import { renderPdf, type PageFormat, type PageWriter } from './page-writer';
import { formatAmount, layOutHead, layOutPrinted, paperFormat, type CopyFacts } from './receipt';

export interface CreditNoteData {
  letterhead: LetterheadLines;
  copy: CopyFacts;
  number: string;
  kind: CreditNoteKind;
  /** When the money went back, or the bill was cancelled, and by whom. */
  at: string;
  by: string;
  reason: string | null;
  billNumber: string;
  billDate: string;
  patientName: string;
  patientContact: string;
  grandTotal: Cents;
  /** The item a refund was of, when it named one. */
  item: string | null;
  lines: Array<{ method: string; amount: Cents }>;
}

const TITLES: Record<CreditNoteKind, string> = {
  refund: 'Credit note: refund',
  cancellation: 'Credit note: bill cancelled',
};

function layOut(w: PageWriter, data: CreditNoteData, format: PageFormat): void {
  layOutHead(w, format, data.letterhead, data.copy, TITLES[data.kind]);
  w.rule();
  w.pair('Credit note', data.number, { bold: true });
  w.pair(data.kind === 'refund' ? 'Refunded at' : 'Cancelled at', data.at);
  w.pair(data.kind === 'refund' ? 'Given back by' : 'Cancelled by', data.by);
  if (data.reason) w.pair('Reason', data.reason);
  w.rule();
  w.pair('Original bill', data.billNumber, { bold: true });
  w.pair('Bill date', data.billDate);
  w.pair('Patient', data.patientName);
  w.pair('Contact', data.patientContact);
  w.pair('Bill total', formatAmount(data.grandTotal));
  w.onNewPage = () => {
    w.pair(`${data.number} (continued)`, data.billNumber);
    w.rule();
  };
  w.together(() => {
    w.rule();
    if (data.item) w.pair('Item', data.item);
    if (data.lines.length === 0) w.pair('Given back', 'Nothing was paid');
    for (const line of data.lines) w.pair(`Given back in ${line.method}`, formatAmount(line.amount));
    w.pair('Total given back', formatAmount(data.lines.reduce((sum, line) => sum + line.amount, 0)), { bold: true });
    w.rule();
    w.signatures(['Received by'], 4);
    w.rule();
    layOutPrinted(w, data.copy);
  });
  w.gap(format.margin / 2);
}

export function renderCreditNote(fonts: PaperFonts, data: CreditNoteData, size: ReceiptSize): Promise<Buffer> {
  const format = paperFormat(size);
  const info = { Title: `Credit note ${data.number}`, Subject: `Credit note of ${data.billNumber}` };
  return renderPdf(fonts, format, info, (w) => layOut(w, data, format));
}
