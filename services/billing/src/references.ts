/**
 * What billing reads of the reference data it keeps: branches and users'
 * names from each replica's coherent cache (a payment's answer names its
 * biller, every bill checks its branch: both were a database read each),
 * patients straight from the database (too many to keep).
 */
import type { RefKind } from '@clinic/contracts';
import type { Logger } from '@clinic/service-kit';
import {
  ReferenceCache,
  refScope,
  type ReferenceData,
  type StoredRef,
  type VersionedCache,
} from '@clinic/service-kit/storage';

/** The cache scope of the users' names that reads show as billed_by_name. */
export const USER_NAMES_SCOPE = refScope('user');

export class BillingReferences {
  /** Branches and users, kept in the cache. */
  private readonly kept: ReferenceCache;

  constructor(
    private readonly refs: ReferenceData,
    cache: Pick<VersionedCache, 'get' | 'bump'>,
  ) {
    this.kept = new ReferenceCache(refs, cache, ['user', 'store']);
  }

  /** Marks what billing keeps of a kind as changed, once a record of it is applied. */
  applied(kind: RefKind): Promise<void> {
    return this.kept.applied(kind);
  }

  /** A live branch, or null. */
  branch(id: number): Promise<StoredRef<'store'> | null> {
    return this.kept.get('store', id);
  }

  /** A live patient, or null. */
  patient(id: number): Promise<StoredRef<'patient'> | null> {
    return this.refs.get('patient', id);
  }

  /** The names of those of these users that are known (only integer ids name reference users). */
  async userNames(ids: Array<number | string | null>): Promise<Map<number, string>> {
    const known = ids.filter((id): id is number => typeof id === 'number');
    const users = await this.kept.many('user', known);
    return new Map([...users].map(([id, user]) => [id, user.name]));
  }

  /**
   * userNames for an answer whose write has landed (or must not fail for a
   * name): a failed read leaves the names out (null in the answer) rather than
   * answering 500 for money that was recorded, which a client without an
   * Idempotency-Key would then pay again.
   */
  async userNamesIfReadable(ids: Array<number | string | null>, log: Logger): Promise<Map<number, string>> {
    try {
      return await this.userNames(ids);
    } catch (err) {
      log.warn({ err }, 'users’ names not read; answered without them');
      return new Map();
    }
  }
}
