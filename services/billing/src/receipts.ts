/** GET /lab_bills/{id}/receipt: the printable receipt of an active bill, as a PDF. */
import type { ServiceReply, ServiceRequest } from '@clinic/contracts';
import { foundInBranch, pathId, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import { parseReceiptSize } from './filters';
import type { PaperFonts } from './paper/fonts';
import { pdfReply } from './paper/pdf-reply';
import { renderReceipt } from './paper/receipt';
import { moneyOf } from './money-rules';
import type { BillStorage } from './storage';
import { itemsInOrder } from './views';
import type { BillingReferences } from './references';

export class ReceiptOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
    private readonly fonts: PaperFonts,
  ) {}

  async receipt(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const size = parseReceiptSize(request.query);
    const doc = foundInBranch(ctx, await this.storage.queries.findLive(id), 'BILL_NOT_FOUND');
    const [branch, names] = await Promise.all([this.refs.branch(doc.store_id), this.refs.userNames([doc.billed_by])]);
    const billedBy = doc.billed_by === null ? null : (names.get(doc.billed_by) ?? null);
    const pdf = await renderReceipt(
      this.fonts,
      {
        branchName: branch?.name ?? `Branch ${doc.store_id}`,
        billNumber: doc.bill_number,
        billDate: doc.bill_date,
        patientName: doc.patient_name,
        patientContact: doc.patient_contact,
        items: itemsInOrder(doc).map((item) => ({
          name: item.charge_name,
          qty: item.qty,
          unitPrice: item.unit_price_cents,
          lineTotal: item.line_total_cents,
        })),
        subtotal: doc.subtotal_cents,
        discount: doc.discount_cents,
        discountRate: doc.discount_type === 'pct' && doc.discount_value > 0 ? `${doc.discount_value}%` : null,
        grandTotal: doc.grand_total_cents,
        paymentMethod: doc.payment_method,
        paymentStatus: doc.payment_status,
        cash: doc.payment_method === 'Cash' ? { received: doc.received_cents, balance: doc.balance_cents } : null,
        money: moneyOf(doc),
        notes: doc.notes,
        billedBy: billedBy ?? (doc.billed_by === null ? '-' : `User ${doc.billed_by}`),
        printedAt: this.clock.timestamp(new Date()) as string,
      },
      size,
    );
    return pdfReply(`${doc.bill_number}.pdf`, pdf);
  }
}
