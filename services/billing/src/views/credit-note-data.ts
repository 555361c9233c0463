/** A credit note as its paper shows it: the note's facts, its number, and the bill it is against. */
import type { ClinicClock } from '@clinic/service-kit';
import type { CreditNoteFacts } from '../domain/credit-notes';
import type { LetterheadLines } from '../domain/letterhead';
import type { CreditNoteData } from './paper/credit-note';
import type { CopyFacts } from './paper/receipt';
import type { BillDoc } from '../domain/bill';

export function creditNoteData(
  doc: BillDoc,
  note: CreditNoteFacts,
  context: {
    number: string;
    letterhead: LetterheadLines;
    copy: CopyFacts;
    nameOf: (user: number | string | null) => string;
    clock: ClinicClock;
  },
): CreditNoteData {
  return {
    letterhead: context.letterhead,
    copy: context.copy,
    number: context.number,
    kind: note.kind,
    at: context.clock.timestamp(note.at) as string,
    by: context.nameOf(note.by?.sub ?? null),
    reason: note.reason,
    billNumber: doc.bill_number,
    billDate: doc.bill_date,
    patientName: doc.patient_name,
    patientContact: doc.patient_contact,
    grandTotal: doc.grand_total_cents,
    item: note.itemId === null ? null : (doc.items.find((item) => item.id === note.itemId)?.charge_name ?? null),
    lines: note.lines,
  };
}
