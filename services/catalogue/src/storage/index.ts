/**
 * The catalogue's storage layer: what the domain code calls, and the one
 * place that knows how charges are laid out and indexed.
 */
import type { Collection } from 'mongodb';
import { AuditTrail, type StorageDeps } from '@clinic/service-kit/storage';
import { ensureIndexes } from './database-quirks';
import { CHARGE_HISTORY, CHARGES, type ChargeDoc } from './documents';
import { CHARGE_INDEX_DESCRIPTIONS } from './indexes';
import { ChargeQueries } from './queries';
import { ChargeWrites } from './writes';

export type { ChargeDoc } from './documents';

export class ChargeStorage {
  readonly queries: ChargeQueries;
  readonly writes: ChargeWrites;
  /** Every create, update and delete of a charge (see writes.ts). */
  readonly history: AuditTrail;
  private readonly charges: Collection<ChargeDoc>;

  constructor(deps: StorageDeps) {
    this.charges = deps.db.collection<ChargeDoc>(CHARGES);
    this.history = new AuditTrail(deps.db, CHARGE_HISTORY, deps.clock);
    this.queries = new ChargeQueries(this.charges, deps);
    this.writes = new ChargeWrites(this.charges, this.history, deps, (id) => this.queries.findLive(id));
  }

  /** Indexes; before the service takes requests. */
  async prepare(): Promise<void> {
    await ensureIndexes(this.charges, CHARGE_INDEX_DESCRIPTIONS);
    await this.history.ensureIndexes();
  }
}
