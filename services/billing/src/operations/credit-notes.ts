/**
 * A bill's credit notes: GET /lab_bills/{id}/refund_slip?refund_id= (one
 * refund) and GET /lab_bills/{id}/cancellation_slip (a cancelled bill). A
 * note is numbered the first time it is printed, and keeps that number;
 * its prints are counted in the bill's history as the receipt's are.
 */
import { FIELD_MESSAGES, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import { badRequest, fail, foundInBranch, pathId, queryText, type HandlerContext } from '@clinic/service-kit';
import { cancellationNote, refundNote, type CreditNoteFacts } from '../domain/credit-notes';
import { parseReceiptSize } from '../domain/filters';
import type { PaperDesk } from './paper-desk';
import { renderCreditNote } from '../views/paper/credit-note';
import type { PaperFonts } from '../views/paper/fonts';
import { pdfReply } from '../views/paper/pdf-reply';
import type { BillStorage } from '../storage';
import type { BillDoc } from '../domain/bill';
import { creditNoteData } from '../views/credit-note-data';

export class CreditNoteOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly desk: PaperDesk,
    private readonly fonts: PaperFonts,
  ) {}

  async refundSlip(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const refundId = queryText(request.query, 'refund_id', badRequest, 100);
    if (refundId === undefined) throw badRequest(FIELD_MESSAGES.required('refund_id'), 'refund_id');
    const size = parseReceiptSize(request.query);
    const doc = foundInBranch(ctx, await this.storage.queries.findById(id), 'BILL_NOT_FOUND');
    const note = refundNote(doc.ledger ?? [], refundId);
    if (!note) throw fail('REFUND_NOT_FOUND');
    return this.printed(ctx, doc, note, size);
  }

  async cancellationSlip(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const size = parseReceiptSize(request.query);
    const doc = foundInBranch(ctx, await this.storage.queries.findById(id), 'BILL_NOT_FOUND');
    const cancellation = await this.desk.cancellation(doc);
    if (!cancellation) throw fail('BILL_NOT_CANCELLED');
    return this.printed(ctx, doc, cancellationNote(doc.ledger ?? [], cancellation), size);
  }

  private async printed(
    ctx: HandlerContext,
    doc: BillDoc,
    note: CreditNoteFacts,
    size: ReturnType<typeof parseReceiptSize>,
  ): Promise<ServiceReply> {
    const number = await this.storage.creditNotes.numberOf({ ...note, billId: doc.id });
    const [letterhead, nameOf] = await Promise.all([
      this.desk.letterhead(doc.store_id),
      this.desk.namer([note.by?.sub ?? null]),
    ]);
    const paper = note.kind === 'refund' ? 'refund_slip' : 'cancellation_slip';
    const copy = await this.desk.print(ctx, doc, paper, size, number);
    const data = creditNoteData(doc, note, { number, letterhead, copy, nameOf, clock: this.desk.clock });
    return pdfReply(`${number}.pdf`, await renderCreditNote(this.fonts, data, size));
  }
}
