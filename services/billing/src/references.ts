/**
 * What billing reads of the reference data it keeps: branches and users'
 * names from each replica's coherent cache (a payment's answer names its
 * biller, every bill checks its branch: both were a database read each),
 * patients straight from the database (too many to keep).
 */
import type { RefKind } from '@clinic/contracts';
import type { Logger } from '@clinic/service-kit';
import type { ReferenceData, StoredRef, VersionedCache } from '@clinic/service-kit/storage';

/** The cache scope of one kind of reference record; applying a record of the kind bumps it. */
export const refScope = (kind: RefKind): string => `refs:${kind}`;

/** The cache scope of the users' names that reads show as billed_by_name. */
export const USER_NAMES_SCOPE = refScope('user');

/** The kinds whose records billing reads through its cache. */
const CACHED_KINDS: readonly RefKind[] = ['user', 'store'];

export class BillingReferences {
  constructor(
    private readonly refs: ReferenceData,
    private readonly cache: Pick<VersionedCache, 'get' | 'bump'>,
  ) {}

  /** Marks what billing keeps of a kind as changed, once a record of it is applied. */
  async applied(kind: RefKind): Promise<void> {
    if (CACHED_KINDS.includes(kind)) await this.cache.bump(refScope(kind));
  }

  /** A live branch, or null. */
  branch(id: number): Promise<StoredRef<'store'> | null> {
    return this.cache.get(refScope('store'), `store:${id}`, () => this.refs.get('store', id));
  }

  /** A live patient, or null. */
  patient(id: number): Promise<StoredRef<'patient'> | null> {
    return this.refs.get('patient', id);
  }

  /** The names of those of these users that are known (only integer ids name reference users). */
  async userNames(ids: Array<number | string | null>): Promise<Map<number, string>> {
    const known = [...new Set(ids.filter((id): id is number => typeof id === 'number'))].sort((a, b) => a - b);
    if (known.length === 0) return new Map();
    const pairs = await this.cache.get(USER_NAMES_SCOPE, `names:${known.join(',')}`, async () => {
      const users = await this.refs.many('user', known);
      return [...users].map(([id, user]): [number, string] => [id, user.name]);
    });
    return new Map(pairs);
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
