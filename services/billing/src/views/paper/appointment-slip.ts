/**
 * The booking slip of a channeling appointment, on an 80 mm roll:
 * the clinic, the doctor, the date, the number and its estimated time, the
 * patient, the doctor's and the hospital's fees on their own lines, the
 * total, what was paid, and a QR code of the appointment's id for the
 * counter's scanner. Names in Sinhala, Tamil or English wrap in their
 * column. Pure rendering: the caller gathers the figures.
 */
import type { Cents } from '@clinic/service-kit';
import type { LetterheadLines } from '../../domain/letterhead';
import type { PaperFonts } from './fonts';
import { MM, renderPdf, type PageFormat, type PageWriter } from './page-writer';
import { QR_SIDE, QUIET_MODULES, qrLayout, qrPlacement } from './qr-code';
import { formatAmount, layOutHead, layOutPrinted, type CopyFacts } from './receipt';

export interface SlipData {
  letterhead: LetterheadLines;
  doctorName: string;
  sessionDate: string;
  appointmentId: number;
  appointmentNo: number;
  estimatedTime: string;
  patientName: string;
  doctorFee: Cents;
  hospitalFee: Cents;
  paid: Cents;
  status: string;
  copy: CopyFacts;
}

const ROLL: PageFormat = { width: 80 * MM, margin: 4 * MM, fontSize: 8, titleSize: 11 };
function layOut(w: PageWriter, data: SlipData): void {
  layOutHead(w, ROLL, data.letterhead, data.copy, 'Channeling appointment', { title: {} });
  w.rule();
  w.pair('Doctor', data.doctorName, { bold: true });
  w.pair('Session date', data.sessionDate);
  w.centered(`No. ${data.appointmentNo}`, { bold: true, size: 20 });
  w.centered(`Estimated time ${data.estimatedTime}`, { bold: true });
  w.pair('Patient', data.patientName);
  w.rule();
  w.pair("Doctor's fee", formatAmount(data.doctorFee));
  w.pair('Hospital fee', formatAmount(data.hospitalFee));
  w.pair('Total', formatAmount(data.doctorFee + data.hospitalFee), { bold: true });
  w.pair('Paid', formatAmount(data.paid));
  w.pair('Status', data.status);
  w.rule();
  const qr = qrLayout(String(data.appointmentId));
  w.drawing(QR_SIDE, (doc, box) => {
    const { left, module } = qrPlacement(qr.size, box.width);
    for (const run of qr.runs) {
      const top = box.top + (QUIET_MODULES + run.y) * module;
      doc.rect(box.left + left + run.x * module, top, run.width * module, module);
    }
    doc.fillColor('#000000').fill();
  });
  w.centered(`Appointment ${data.appointmentId}`);
  layOutPrinted(w, data.copy);
  w.gap(ROLL.margin / 2);
}

export function renderSlip(fonts: PaperFonts, data: SlipData): Promise<Buffer> {
  const info = { Title: `Appointment ${data.appointmentId}`, Subject: 'Channeling appointment slip' };
  return renderPdf(fonts, ROLL, info, (w) => layOut(w, data));
}
