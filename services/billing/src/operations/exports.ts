/**
 * billing.bill.export (GET /lab_bills/export): one page of an export's rows,
 * bills or their items, and the cursor of the next. The gateway writes the
 * CSV or Excel file from the pages; other systems on NATS read the rows.
 * A page holds at most EXPORT_PAGE_BILLS bills, whatever the range.
 */
import {
  EXPORT_PAGE_BILLS,
  EXPORT_PAGE_DAYS,
  success,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import { requireBranch, type HandlerContext } from '@clinic/service-kit';
import { parseExportQuery } from '../domain/filters';
import type { BillStorage } from '../storage';
import { itemsView } from '../views/bill-view';
import type { BillViews } from '../views/bill-views';

export class ExportOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly views: BillViews,
  ) {}

  async page(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const query = parseExportQuery(request.query);
    requireBranch(ctx, query.filter.store_id);
    const asOf = query.asOf ?? new Date();
    const withItems = query.part === 'items';
    const { docs, next } = await this.storage.exports.page(query, asOf, withItems, EXPORT_PAGE_BILLS, EXPORT_PAGE_DAYS);
    const page = { as_of: asOf.toISOString(), next: next && `${next.date}.${next.after}` };
    if (withItems) {
      const items = docs.flatMap((doc) =>
        itemsView(doc).map((item) => ({ ...item, bill_number: doc.bill_number, bill_date: doc.bill_date })),
      );
      return success(200, { ...page, items });
    }
    return success(200, { ...page, bills: await this.views.rows(docs) });
  }
}
