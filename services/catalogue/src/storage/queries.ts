/** Reads of charges: one charge, a branch's list, the billable ids of a branch. */
import type { Collection } from 'mongodb';
import { escapeRegExp } from '@clinic/service-kit';
import type { Share, StorageDeps } from '@clinic/service-kit/storage';
import { docKey } from './database-quirks';
import type { ChargeListFilter } from '../domain/rules';
import type { ChargeDoc, ChargeView, ShowCharge } from '../domain/charge';
import { branchScope, chargeScope } from './documents';

export class ChargeQueries {
  constructor(
    private readonly charges: Collection<ChargeDoc>,
    private readonly deps: Pick<StorageDeps, 'cache' | 'clock'>,
    private readonly show: ShowCharge,
  ) {}

  /** A charge that exists and is not deleted. */
  findLive(id: number): Promise<ChargeDoc | null> {
    return this.charges.findOne({ _id: docKey(id), is_deleted: false });
  }

  /**
   * A live charge's branch and the charge as the API shows it, passed through `present` once per version of
   * the charge and kept; null when there is none.
   */
  one<T>(
    id: number,
    present: (charge: ChargeView) => T,
    share?: Share,
  ): Promise<{ store_id: number; value: T } | null> {
    const load = async () => {
      const doc = await this.findLive(id);
      return doc && { store_id: doc.store_id, value: present(this.view(doc)) };
    };
    return this.deps.cache.get(chargeScope(id), 'one', load, share);
  }

  /** A charge as the API shows it (its timestamps in the clinic's time zone): reads answer it, If-Match compares it. */
  view(doc: ChargeDoc): ChargeView {
    return this.show(doc, this.deps.clock);
  }

  /** The branch of a charge that was ever created (deleted ones included), or null. */
  branchOf(id: number): Promise<{ store_id: number } | null> {
    return this.charges.findOne({ _id: docKey(id) }, { projection: { _id: 0, store_id: 1 } });
  }

  /**
   * Live charges of a store as the API shows them, by name (case-insensitively, as people read a list),
   * passed through `present` once per version of the data and kept.
   */
  list<T>(filter: ChargeListFilter, present: (charges: ChargeView[]) => T, share?: Share): Promise<T> {
    const load = async () => present((await this.query(filter)).map((d) => this.view(d)));
    return this.deps.cache.get(branchScope(filter.store_id), JSON.stringify(filter), load, share);
  }

  /**
   * Ids among `ids` that cannot be billed in `branchId` (missing, deleted, not
   * Active or of another store), and the current amount in cents of each of the others.
   */
  async billable(branchId: number, ids: number[]): Promise<{ invalid: number[]; amounts: Map<number, number> }> {
    const billable = await this.deps.cache.get(branchScope(branchId), 'billable', async () => {
      const docs = await this.charges
        .find({ store_id: branchId, is_deleted: false, status: 'Active' }, { projection: { id: 1, amount_cents: 1 } })
        .toArray();
      return new Map(docs.map((d) => [d.id, d.amount_cents]));
    });
    const asked = [...new Set(ids)];
    return {
      invalid: asked.filter((id) => !billable.has(id)),
      amounts: new Map(asked.flatMap((id) => (billable.has(id) ? [[id, billable.get(id)!] as const] : []))),
    };
  }

  private async query(filter: ChargeListFilter): Promise<ChargeDoc[]> {
    const query: Record<string, unknown> = { store_id: filter.store_id, is_deleted: false };
    if (filter.status !== undefined) query.status = filter.status;
    if (filter.charge_type !== undefined) query.charge_type = filter.charge_type;
    if (filter.search !== undefined) {
      const literal = { $regex: escapeRegExp(filter.search), $options: 'i' };
      query.$or = [{ charge_name: literal }, { notes: literal }];
    }
    const docs = await this.charges.find(query).toArray();
    return docs.sort(
      (a, b) => a.name_key.localeCompare(b.name_key) || a.charge_name.localeCompare(b.charge_name) || a.id - b.id,
    );
  }
}
