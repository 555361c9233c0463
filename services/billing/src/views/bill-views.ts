/** Bills as the reads and a payment's answer show them: bill-view.ts's shapes with the name of who billed each. */
import type { ClinicClock, Logger } from '@clinic/service-kit';
import type { BillingReferences } from '../references';
import type { BillDoc } from '../domain/bill';
import { billView, itemsView } from './bill-view';

const billerIn = (names: Map<number, string>, doc: BillDoc): string | null => names.get(doc.billed_by ?? 0) ?? null;

export class BillViews {
  constructor(
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
  ) {}

  /** List rows: bills without their items. */
  async rows(docs: BillDoc[]): Promise<Array<Record<string, unknown>>> {
    const names = await this.refs.userNames(docs.map((doc) => doc.billed_by));
    return docs.map((doc) => billView(doc, this.clock, billerIn(names, doc)));
  }

  /** One bill with its items. */
  async whole(doc: BillDoc): Promise<Record<string, unknown>> {
    return this.withItems(doc, await this.refs.userNames([doc.billed_by]));
  }

  /**
   * One bill with its items, in the answer of a write that has landed: a
   * failed read of the name answers null for it (see userNamesIfReadable).
   */
  async afterWrite(doc: BillDoc, log: Logger): Promise<Record<string, unknown>> {
    return this.withItems(doc, await this.refs.userNamesIfReadable([doc.billed_by], log));
  }

  private withItems(doc: BillDoc, names: Map<number, string>): Record<string, unknown> {
    return { ...billView(doc, this.clock, billerIn(names, doc)), items: itemsView(doc) };
  }
}
