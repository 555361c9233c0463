/**
 * The catalogue's storage layer: what the domain code calls, and the one
 * place that knows how charges are laid out and indexed.
 */
import { AuditTrail, type StorageDeps } from '@clinic/service-kit/storage';
import { ensureCatalogueIndexes } from './database-quirks';
import type { ChargeDoc, ShowCharge } from '../domain/charge';
import { CHARGE_HISTORY, CHARGES } from './documents';
import { CATALOGUE_INDEX_CATALOGUE } from './index-catalogue';
import { ChargeQueries } from './queries';
import { ChargeWrites } from './writes';

export type { ChangeContext } from './writes';

export class ChargeStorage {
  readonly queries: ChargeQueries;
  readonly writes: ChargeWrites;
  /** Every create, update and delete of a charge (see writes.ts). */
  readonly history: AuditTrail;

  constructor(
    private readonly deps: StorageDeps,
    /** How a charge is shown (views/), as reads keep it and events carry it. */
    show: ShowCharge,
  ) {
    const charges = deps.db.collection<ChargeDoc>(CHARGES);
    this.history = new AuditTrail(deps.db, CHARGE_HISTORY, deps.clock);
    this.queries = new ChargeQueries(charges, deps, show);
    this.writes = new ChargeWrites(charges, this.history, deps, (id) => this.queries.findLive(id), show);
  }

  /** The catalogue's indexes (index-catalogue.ts); before the service takes requests. */
  async prepare(): Promise<void> {
    await ensureCatalogueIndexes(this.deps.db, CATALOGUE_INDEX_CATALOGUE);
  }
}
