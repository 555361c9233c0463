/**
 * The printable receipt of a bill, as a PDF: an 80 mm roll, one page as long
 * as the bill, or A5 sheets. Pure rendering: the caller gathers the figures
 * (views/receipt-data.ts). Names, charges and notes in Sinhala, Tamil or
 * English wrap in their column.
 */
import type { ReceiptSize } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { LetterheadLines } from '../../domain/letterhead';
import type { PaperFonts } from './fonts';
import { layOutLetterhead } from './letterhead';
import { MM, renderPdf, type PageFormat, type PageWriter } from './page-writer';

export interface ReceiptItem {
  name: string;
  qty: number;
  unitPrice: Cents;
  lineTotal: Cents;
}

/** A payment, refund or reversal: its line (money given back negative), then what else it records. */
export interface ReceiptEntry {
  label: string;
  amount: Cents;
  /** Label and value pairs under it: the cash handed over, the reference, the reason, who and when. */
  details: Array<[string, string]>;
}

/** Who printed this copy and when, and its mark (`DUPLICATE n`) when it is not the original. */
export interface CopyFacts {
  mark: string | null;
  printedAt: string;
  printedBy: string;
}

export interface ReceiptData {
  letterhead: LetterheadLines;
  copy: CopyFacts;
  /** A cancelled bill's receipt says so, with when, who and why. */
  cancelled: { at: string; by: string; reason: string | null } | null;
  billNumber: string;
  billDate: string;
  /** When the bill was made, in the clinic's time. */
  billedAt: string;
  patientName: string;
  patientContact: string;
  patientAge: number | null;
  patientNic: string | null;
  items: ReceiptItem[];
  subtotal: Cents;
  discount: Cents;
  /** `10%` for a percentage discount, null for a flat one. */
  discountRate: string | null;
  grandTotal: Cents;
  paymentMethod: string;
  /** What each method took, when more than one did. */
  tenders: Array<{ method: string; amount: Cents }>;
  paymentStatus: string;
  /** Cash handed over and given back, as the ledger recorded it; null when no cash was taken. */
  cash: { received: Cents; balance: Cents } | null;
  entries: ReceiptEntry[];
  paid: Cents;
  refunded: Cents;
  due: Cents;
  notes: string | null;
  billedBy: string;
}

const FORMATS: Record<ReceiptSize, PageFormat> = {
  '80mm': { width: 80 * MM, margin: 4 * MM, fontSize: 8, titleSize: 11 },
  a5: { width: 148 * MM, height: 210 * MM, margin: 12 * MM, fontSize: 9.5, titleSize: 14 },
};

/** The papers a bill gives (receipts, credit notes) are set alike. */
export const paperFormat = (size: ReceiptSize): PageFormat => FORMATS[size];

/** 123456 -> `1,234.56`; exact, from integer cents. */
export function formatAmount(cents: Cents): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${units}.${String(abs % 100).padStart(2, '0')}`;
}

/** How a paper's title is set, and its logo's size (a bill's papers: bold, 18 mm on a page, 14 mm on a roll). */
export interface HeadStyle {
  title?: { bold?: boolean; size?: number };
  logo?: number;
}

/** The letterhead, then the copy's mark and the paper's title: how every printed paper starts. */
export function layOutHead(
  w: PageWriter,
  format: PageFormat,
  head: LetterheadLines,
  copy: CopyFacts,
  title: string,
  style: HeadStyle = {},
) {
  layOutLetterhead(w, head, {
    title: format.titleSize,
    text: format.fontSize,
    logo: style.logo ?? (format.height ? 18 * MM : 14 * MM),
  });
  if (copy.mark) w.centered(copy.mark, { bold: true, size: format.titleSize });
  w.centered(title, style.title ?? { bold: true });
}

/** Who printed the copy and when: the last lines of every paper of a bill. */
export function layOutPrinted(w: PageWriter, copy: CopyFacts): void {
  w.pair('Printed', copy.printedAt);
  w.pair('Printed by', copy.printedBy);
}

function layOutItems(w: PageWriter, data: ReceiptData, format: PageFormat): void {
  const continued = `${data.billNumber}${data.copy.mark ? ` ${data.copy.mark}` : ''} (continued)`;
  if (format.height) {
    const row = ([name, qty, unitPrice, lineTotal]: readonly [string, string, string, string]) => [
      { text: name, from: 0, to: 0.45 },
      { text: qty, from: 0.45, to: 0.52, align: 'right' as const },
      { text: unitPrice, from: 0.52, to: 0.76, align: 'right' as const },
      { text: lineTotal, from: 0.76, to: 1, align: 'right' as const },
    ];
    const headingRow = () => w.row(row(['Item', 'Qty', 'Unit price', 'Line total']), { bold: true });
    headingRow();
    w.onNewPage = () => {
      w.pair(continued, data.patientName);
      w.rule();
      headingRow();
    };
    for (const item of data.items) {
      w.row(row([item.name, String(item.qty), formatAmount(item.unitPrice), formatAmount(item.lineTotal)]));
    }
  } else {
    for (const item of data.items) {
      w.row([{ text: item.name, from: 0, to: 1 }]);
      w.pair(`   ${item.qty} x ${formatAmount(item.unitPrice)}`, formatAmount(item.lineTotal));
    }
  }
  w.onNewPage = () => {
    w.pair(continued, data.patientName);
    w.rule();
  };
}

/** Totals, how it was paid, every entry of its ledger, and the footer: kept on one sheet with each other. */
function layOutMoney(w: PageWriter, data: ReceiptData): void {
  w.rule();
  w.pair('Subtotal', formatAmount(data.subtotal));
  w.pair(data.discountRate ? `Discount (${data.discountRate})` : 'Discount', formatAmount(data.discount));
  w.pair('Grand total', formatAmount(data.grandTotal), { bold: true });
  w.rule();
  w.pair('Payment method', data.tenders.length > 1 ? 'Split' : data.paymentMethod);
  if (data.tenders.length > 1) for (const t of data.tenders) w.pair(`   ${t.method}`, formatAmount(t.amount));
  w.pair('Payment status', data.paymentStatus, { bold: data.paymentStatus !== 'Paid' });
  if (data.cash) {
    w.pair('Received', formatAmount(data.cash.received));
    w.pair('Balance', formatAmount(data.cash.balance));
  }
  w.rule();
  for (const entry of data.entries) {
    w.pair(entry.label, formatAmount(entry.amount));
    for (const [label, value] of entry.details) w.pair(`   ${label}`, value);
  }
  w.pair('Total paid', formatAmount(data.paid));
  if (data.refunded > 0) {
    w.pair('Total refunded', formatAmount(data.refunded));
    w.pair('Net paid', formatAmount(data.paid - data.refunded), { bold: true });
  }
  w.pair('Amount due', formatAmount(data.due), { bold: true });
  w.rule();
  w.pair('Billed by', data.billedBy);
  layOutPrinted(w, data.copy);
}

function layOut(w: PageWriter, data: ReceiptData, format: PageFormat): void {
  layOutHead(w, format, data.letterhead, data.copy, 'Lab bill receipt');
  if (data.cancelled) {
    w.centered('CANCELLED', { bold: true, size: format.titleSize });
    w.pair('Cancelled at', data.cancelled.at);
    w.pair('Cancelled by', data.cancelled.by);
    if (data.cancelled.reason) w.pair('Reason', data.cancelled.reason);
  }
  w.rule();
  w.pair('Bill number', data.billNumber, { bold: true });
  w.pair('Bill date', data.billDate);
  w.pair('Billed at', data.billedAt);
  w.pair('Patient', data.patientName);
  if (data.patientAge !== null) w.pair('Age', String(data.patientAge));
  if (data.patientNic) w.pair('NIC', data.patientNic);
  w.pair('Contact', data.patientContact);
  w.rule();
  layOutItems(w, data, format);
  if (data.notes) {
    w.rule();
    w.paragraph(`Notes: ${data.notes}`);
  }
  w.together(() => layOutMoney(w, data));
  w.gap(format.margin / 2);
}

export function renderReceipt(fonts: PaperFonts, data: ReceiptData, size: ReceiptSize): Promise<Buffer> {
  const format = FORMATS[size];
  const info = { Title: `Receipt ${data.billNumber}`, Subject: 'Lab bill receipt' };
  return renderPdf(fonts, format, info, (w) => layOut(w, data, format));
}
