/**
 * A session's settlement printed on A4, for the doctor to sign
 * when paid: the clinic, the doctor, the date, a line per appointment that
 * earned them their share, the total paid out, and the signature lines,
 * kept together on one page. Pure rendering.
 */
import type { Cents } from '@clinic/service-kit';
import type { LetterheadLines } from '../../domain/letterhead';
import type { PaperFonts } from './fonts';
import { MM, renderPdf, type Cell, type PageWriter } from './page-writer';
import { formatAmount, layOutHead, layOutPrinted, type CopyFacts } from './receipt';

export interface SheetLine {
  appointmentNo: number;
  patientName: string;
  status: string;
  doctorFee: Cents;
  doctorPaid: Cents;
  doctorRefunded: Cents;
  earned: Cents;
}

export interface SettlementSheet {
  letterhead: LetterheadLines;
  doctorName: string;
  sessionId: number;
  sessionDate: string;
  method: string;
  paidAt: string;
  paidBy: string;
  amount: Cents;
  lines: SheetLine[];
  /** A reversed settlement says so, with its reason. */
  reversal: { at: string; by: string; reason: string } | null;
  copy: CopyFacts;
}

const A4 = { width: 210 * MM, height: 297 * MM, margin: 15 * MM, fontSize: 9, titleSize: 15 };
const WIDTHS = [0.08, 0.32, 0.12, 0.12, 0.12, 0.12, 0.12];

function cells(texts: string[]): Cell[] {
  let from = 0;
  return texts.map((text, i) => {
    const cell: Cell = { text, from, to: Math.min(1, from + WIDTHS[i]!), align: i === 1 || i === 2 ? 'left' : 'right' };
    from = cell.to;
    return cell;
  });
}

function layOut(w: PageWriter, sheet: SettlementSheet): void {
  const heading = cells(['No.', 'Patient', 'Status', 'Doctor fee', 'Paid', 'Refunded', 'Earned']);
  w.onNewPage = () => {
    w.pair(`${sheet.doctorName}: session ${sheet.sessionDate} (continued)`, '');
    w.row(heading, { bold: true });
  };
  layOutHead(w, A4, sheet.letterhead, sheet.copy, "Doctor's settlement", {
    title: { bold: true, size: 11 },
    logo: 20 * MM,
  });
  w.pair('Doctor', sheet.doctorName, { bold: true });
  w.pair('Session', `${sheet.sessionDate} (session ${sheet.sessionId})`);
  w.pair('Paid', `${sheet.paidAt} by ${sheet.paidBy}, ${sheet.method}`);
  if (sheet.reversal)
    w.pair('REVERSED', `${sheet.reversal.at} by ${sheet.reversal.by}: ${sheet.reversal.reason}`, { bold: true });
  w.rule();
  w.row(heading, { bold: true });
  w.rule();
  for (const line of sheet.lines) {
    w.row(
      cells([
        String(line.appointmentNo),
        line.patientName,
        line.status,
        formatAmount(line.doctorFee),
        formatAmount(line.doctorPaid),
        formatAmount(line.doctorRefunded),
        formatAmount(line.earned),
      ]),
    );
  }
  if (sheet.lines.length === 0) w.paragraph('No appointment earned a fee.');
  w.rule();
  w.pair('Total paid to the doctor', formatAmount(sheet.amount), { bold: true });
  layOutPrinted(w, sheet.copy);
  w.signatures(['Received by (doctor)', 'Paid by (cashier)', 'Checked by'], 20);
}

export function renderSettlement(fonts: PaperFonts, sheet: SettlementSheet): Promise<Buffer> {
  const info = {
    Title: `Settlement of session ${sheet.sessionId}`,
    Subject: `Doctor's settlement, ${sheet.letterhead.title}`,
  };
  return renderPdf(fonts, A4, info, (w) => layOut(w, sheet));
}
