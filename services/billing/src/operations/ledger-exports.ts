/**
 * billing.ledger.export (GET /lab_bills/ledger/export): one page of a
 * branch's drawer entries, with each one's bill number and the reference or
 * reason its bill's or appointment's ledger keeps, and the cursor of the next.
 */
import {
  EXPORT_PAGE_DAYS,
  EXPORT_PAGE_ENTRIES,
  success,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import { requireBranch, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import { parseLedgerExportQuery } from '../domain/ledger-export-query';
import type { BillingReferences } from '../references';
import type { BillStorage } from '../storage';
import { ledgerRow } from '../views/ledger-row';

export class LedgerExportOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
  ) {}

  async ledgerExport(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const query = parseLedgerExportQuery(request.query);
    requireBranch(ctx, query.store_id);
    const asOf = query.asOf ?? new Date();
    const { entries, next } = await this.storage.ledgerExport.page(query, asOf, EXPORT_PAGE_ENTRIES, EXPORT_PAGE_DAYS);
    const [bills, accounts, names] = await Promise.all([
      this.storage.ledgerExport.billsOf(entries.flatMap((e) => e.bill_id ?? [])),
      this.storage.channeling.accounts.findMany(entries.flatMap((e) => e.appointment_id ?? [])),
      this.refs.userNames(entries.map((e) => e.collector)),
    ]);
    return success(200, {
      as_of: asOf.toISOString(),
      next: next && `${next.day}.${next.after}`,
      entries: entries.map((entry) => {
        const bill = entry.bill_id === undefined ? undefined : bills.get(entry.bill_id);
        const account = entry.appointment_id === undefined ? undefined : accounts.get(entry.appointment_id);
        const source = (bill?.ledger ?? account?.ledger)?.find((e) => e.id === entry._id);
        return ledgerRow(entry, { bill, source, names, clock: this.clock });
      }),
    });
  }
}
