/**
 * The printable receipt of a bill, as a PDF: an 80 mm roll, one page as long
 * as the bill, or A5 sheets. Pure rendering: the caller gathers the figures.
 * Names, charges and notes in Sinhala, Tamil or English wrap in their column.
 */
import type { ReceiptSize } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { BillMoney } from '../money-rules';
import type { PaperFonts } from './fonts';
import { MM, renderPdf, type PageFormat, type PageWriter } from './page-writer';

export interface ReceiptItem {
  name: string;
  qty: number;
  unitPrice: Cents;
  lineTotal: Cents;
}

export interface ReceiptData {
  branchName: string;
  billNumber: string;
  billDate: string;
  patientName: string;
  patientContact: string;
  items: ReceiptItem[];
  subtotal: Cents;
  discount: Cents;
  /** `10%` for a percentage discount, null for a flat one. */
  discountRate: string | null;
  grandTotal: Cents;
  paymentMethod: string;
  paymentStatus: string;
  /** Shown for cash bills only. */
  cash: { received: Cents | null; balance: Cents | null } | null;
  /** Its payments, refunds and reversals, what was paid and refunded, what is due. */
  money: BillMoney;
  notes: string | null;
  billedBy: string;
  printedAt: string;
}

const FORMATS: Record<ReceiptSize, PageFormat> = {
  '80mm': { width: 80 * MM, margin: 4 * MM, fontSize: 8, titleSize: 11 },
  a5: { width: 148 * MM, height: 210 * MM, margin: 12 * MM, fontSize: 9.5, titleSize: 14 },
};

/** 123456 -> `1,234.56`; exact, from integer cents. */
export function formatAmount(cents: Cents): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${units}.${String(abs % 100).padStart(2, '0')}`;
}

function layOut(w: PageWriter, data: ReceiptData, format: PageFormat): void {
  w.centered(data.branchName, { bold: true, size: format.titleSize });
  w.centered('Lab bill receipt');
  w.rule();
  w.pair('Bill number', data.billNumber, { bold: true });
  w.pair('Bill date', data.billDate);
  w.pair('Patient', data.patientName);
  w.pair('Contact', data.patientContact);
  w.rule();
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
      w.pair(`${data.billNumber} (continued)`, data.patientName);
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
    w.pair(`${data.billNumber} (continued)`, data.patientName);
    w.rule();
  };
  w.rule();
  w.pair('Subtotal', formatAmount(data.subtotal));
  w.pair(data.discountRate ? `Discount (${data.discountRate})` : 'Discount', formatAmount(data.discount));
  w.pair('Grand total', formatAmount(data.grandTotal), { bold: true });
  w.rule();
  w.pair('Payment method', data.paymentMethod);
  w.pair('Payment status', data.paymentStatus);
  if (data.cash) {
    w.pair('Received', data.cash.received === null ? '-' : formatAmount(data.cash.received));
    w.pair('Balance', data.cash.balance === null ? '-' : formatAmount(data.cash.balance));
  }
  w.rule();
  layOutMoney(w, data.money);
  if (data.notes) {
    w.rule();
    w.paragraph(`Notes: ${data.notes}`);
  }
  w.rule();
  w.pair('Billed by', data.billedBy);
  w.pair('Printed', data.printedAt);
  w.gap(format.margin / 2);
}

const ENTRY_LABELS = { payment: 'Payment', refund: 'Refund', reversal: 'Reversal' } as const;

/** Each payment, refund and reversal (money given back as a negative amount), then the bill's totals of them. */
function layOutMoney(w: PageWriter, money: BillMoney): void {
  for (const entry of money.ledger) {
    const back = entry.kind === 'payment' ? 1 : -1;
    w.pair(`${ENTRY_LABELS[entry.kind]} ${entry.day} ${entry.method}`, formatAmount(back * entry.amount_cents));
    if (entry.change_cents !== null) w.pair('   Change given', formatAmount(entry.change_cents));
  }
  w.pair('Total paid', formatAmount(money.paid));
  if (money.refunded > 0) w.pair('Total refunded', formatAmount(money.refunded));
  w.pair('Amount due', formatAmount(money.due), { bold: true });
}

export function renderReceipt(fonts: PaperFonts, data: ReceiptData, size: ReceiptSize): Promise<Buffer> {
  const format = FORMATS[size];
  const info = { Title: `Receipt ${data.billNumber}`, Subject: 'Lab bill receipt' };
  return renderPdf(fonts, format, info, (w) => layOut(w, data, format));
}
