/**
 * GET /lab_bills/{id}/receipt: the printable receipt of a bill, as a PDF.
 * A cancelled bill's stays readable, marked CANCELLED; every print is
 * counted in the bill's history, and each after the first says DUPLICATE n.
 */
import type { ServiceReply, ServiceRequest } from '@clinic/contracts';
import { foundInBranch, pathId, type HandlerContext } from '@clinic/service-kit';
import { parseReceiptSize } from '../domain/filters';
import type { PaperDesk } from './paper-desk';
import type { PaperFonts } from '../views/paper/fonts';
import { pdfReply } from '../views/paper/pdf-reply';
import { renderReceipt } from '../views/paper/receipt';
import type { BillStorage } from '../storage';
import { receiptData } from '../views/receipt-data';

export class ReceiptOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly desk: PaperDesk,
    private readonly fonts: PaperFonts,
  ) {}

  async receipt(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const size = parseReceiptSize(request.query);
    const doc = foundInBranch(ctx, await this.storage.queries.findById(id), 'BILL_NOT_FOUND');
    const cancellation = await this.desk.cancellation(doc);
    const [letterhead, nameOf] = await Promise.all([
      this.desk.letterhead(doc.store_id),
      this.desk.namer([doc.billed_by, cancellation?.by?.sub ?? null, ...(doc.ledger ?? []).map((e) => e.by.sub)]),
    ]);
    const copy = await this.desk.print(ctx, doc, 'receipt', size);
    const data = receiptData(doc, { letterhead, copy, cancellation, nameOf, clock: this.desk.clock });
    return pdfReply(`${doc.bill_number}.pdf`, await renderReceipt(this.fonts, data, size));
  }
}
