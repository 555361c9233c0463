/**
 * The printable receipt of a bill, as a PDF (pdfkit): an 80 mm roll, one page
 * as long as the bill, or A5 sheets. Pure rendering: the caller gathers the
 * figures. Text is set in the PDF's built-in Helvetica, which covers Latin
 * scripts; other characters print as "?".
 */
import PDFDocument from 'pdfkit';
import type { ReceiptSize } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { BillMoney } from './storage';

export interface ReceiptItem {
  name: string;
  qty: number;
  unitPrice: Cents;
  lineTotal: Cents;
}

export interface ReceiptData {
  storeName: string;
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
  billedBy: string;
  printedAt: string;
}

const MM = 72 / 25.4;

interface PageFormat {
  width: number;
  /** Undefined: the page is as long as the receipt (a roll). */
  height?: number;
  margin: number;
  fontSize: number;
  titleSize: number;
  /** Item rows as one line with four columns (wide paper), or name then figures (a roll). */
  columns: boolean;
}

const FORMATS: Record<ReceiptSize, PageFormat> = {
  '80mm': { width: 80 * MM, margin: 4 * MM, fontSize: 8, titleSize: 11, columns: false },
  a5: { width: 148 * MM, height: 210 * MM, margin: 12 * MM, fontSize: 9.5, titleSize: 14, columns: true },
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

/** Characters the built-in fonts can print (WinAnsi); anything else becomes `?`. */
export function printable(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u20ac]/gu, '?');
}

/** Writes top to bottom, starting a new page (on sheets) when a block does not fit. */
class Writer {
  y: number;
  readonly left: number;
  readonly width: number;
  /** Written at the top of every page after the first. */
  onNewPage: () => void = () => undefined;

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly format: PageFormat,
    private readonly pageHeight: number,
  ) {
    this.left = format.margin;
    this.width = format.width - 2 * format.margin;
    this.y = format.margin;
  }

  private font(bold: boolean, size = this.format.fontSize): void {
    this.doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(size);
  }

  /** Starts a new page unless `height` fits on this one; `restore` sets the caller's font again after the page's heading. */
  private fit(height: number, restore: () => void = () => undefined): void {
    // A roll's page is made as long as the receipt.
    if (!this.format.height) return;
    if (this.y + height <= this.pageHeight - this.format.margin || this.y === this.format.margin) return;
    this.doc.addPage({ size: [this.format.width, this.pageHeight], margins: pageMargins(this.format) });
    this.y = this.format.margin;
    this.onNewPage();
    restore();
  }

  centered(text: string, options: { bold?: boolean; size?: number } = {}): void {
    this.font(options.bold ?? false, options.size);
    const height = this.doc.heightOfString(printable(text), { width: this.width, align: 'center' });
    this.fit(height, () => this.font(options.bold ?? false, options.size));
    this.doc.text(printable(text), this.left, this.y, { width: this.width, align: 'center' });
    this.y += height + 1;
  }

  /** `label` on the left (wrapping), `value` on the right of the same line. */
  pair(label: string, value: string, options: { bold?: boolean } = {}): void {
    this.font(options.bold ?? false);
    const valueWidth = this.doc.widthOfString(printable(value));
    const labelWidth = Math.max(this.width * 0.3, this.width - valueWidth - 6);
    const height = this.doc.heightOfString(printable(label), { width: labelWidth });
    this.fit(height, () => this.font(options.bold ?? false));
    this.doc.text(printable(label), this.left, this.y, { width: labelWidth });
    this.doc.text(printable(value), this.left, this.y, { width: this.width, align: 'right', lineBreak: false });
    this.y += height + 1.5;
  }

  /** Cells at fixed x offsets (fractions of the width), 4 points apart; the outer ones meet the margins. */
  row(
    cells: Array<{ text: string; from: number; to: number; align?: 'left' | 'right' }>,
    options: { bold?: boolean } = {},
  ): void {
    this.font(options.bold ?? false);
    const boxes = cells.map((c) => {
      const x = this.left + c.from * this.width + (c.from > 0 ? 2 : 0);
      const width = (c.to - c.from) * this.width - (c.from > 0 ? 2 : 0) - (c.to < 1 ? 2 : 0);
      return { ...c, x, width, text: printable(c.text) };
    });
    const height = Math.max(...boxes.map((b) => this.doc.heightOfString(b.text, { width: b.width })));
    this.fit(height, () => this.font(options.bold ?? false));
    for (const box of boxes) this.doc.text(box.text, box.x, this.y, { width: box.width, align: box.align ?? 'left' });
    this.y += height + 2;
  }

  rule(): void {
    this.fit(6);
    this.y += 2;
    this.doc
      .moveTo(this.left, this.y)
      .lineTo(this.left + this.width, this.y)
      .lineWidth(0.5)
      .strokeColor('#555555')
      .stroke();
    this.y += 4;
  }

  gap(points: number): void {
    this.y += points;
  }
}

function layOut(w: Writer, data: ReceiptData, format: PageFormat): void {
  w.centered(data.storeName, { bold: true, size: format.titleSize });
  w.centered('Lab bill receipt');
  w.rule();
  w.pair('Bill number', data.billNumber, { bold: true });
  w.pair('Bill date', data.billDate);
  w.pair('Patient', data.patientName);
  w.pair('Contact', data.patientContact);
  w.rule();
  if (format.columns) {
    const row = ([name, qty, unitPrice, lineTotal]: readonly [string, string, string, string]) => [
      { text: name, from: 0, to: 0.52 },
      { text: qty, from: 0.52, to: 0.62, align: 'right' as const },
      { text: unitPrice, from: 0.62, to: 0.81, align: 'right' as const },
      { text: lineTotal, from: 0.81, to: 1, align: 'right' as const },
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
  w.rule();
  w.pair('Billed by', data.billedBy);
  w.pair('Printed', data.printedAt);
  w.gap(format.margin / 2);
}

const ENTRY_LABELS = { payment: 'Payment', refund: 'Refund', reversal: 'Reversal' } as const;

/** Each payment, refund and reversal (money given back as a negative amount), then the bill's totals of them. */
function layOutMoney(w: Writer, money: BillMoney): void {
  for (const entry of money.ledger) {
    const back = entry.kind === 'payment' ? 1 : -1;
    w.pair(`${ENTRY_LABELS[entry.kind]} ${entry.day} ${entry.method}`, formatAmount(back * entry.amount_cents));
    if (entry.change_cents !== null) w.pair('   Change given', formatAmount(entry.change_cents));
  }
  w.pair('Total paid', formatAmount(money.paid));
  if (money.refunded > 0) w.pair('Total refunded', formatAmount(money.refunded));
  w.pair('Amount due', formatAmount(money.due), { bold: true });
}

/** No bottom margin for pdfkit: the Writer keeps its own, so that pdfkit never breaks a page by itself. */
function pageMargins(format: PageFormat) {
  return { top: format.margin, left: format.margin, right: format.margin, bottom: 0 };
}

function render(
  data: ReceiptData,
  format: PageFormat,
  pageHeight: number,
): { doc: PDFKit.PDFDocument; height: number } {
  const doc = new PDFDocument({
    size: [format.width, pageHeight],
    margins: pageMargins(format),
    info: { Title: `Receipt ${data.billNumber}`, Author: printable(data.storeName), Subject: 'Lab bill receipt' },
  });
  const writer = new Writer(doc, format, pageHeight);
  layOut(writer, data, format);
  return { doc, height: writer.y + format.margin / 2 };
}

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}

export function renderReceipt(data: ReceiptData, size: ReceiptSize): Promise<Buffer> {
  const format = FORMATS[size];
  if (format.height) return collect(render(data, format, format.height).doc);
  // A roll: measured on a page long enough for any bill, then set on a page of that length.
  const measured = render(data, format, 100_000);
  measured.doc.end();
  return collect(render(data, format, Math.ceil(measured.height)).doc);
}
