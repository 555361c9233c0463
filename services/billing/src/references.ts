/**
 * What billing reads of the reference data it keeps: branches and users'
 * names from each replica's cache (a payment's answer names its
 * biller, every bill checks its branch: both were a database read each),
 * patients straight from the database (too many to keep).
 */
import type { Caller, RefKind } from '@clinic/contracts';
import type { Logger } from '@clinic/service-kit';
import {
  ReferenceCache,
  refScope,
  type ReferenceData,
  type StoredRef,
  type VersionedCache,
} from '@clinic/service-kit/storage';
import { userIdOf, type StaffUser } from './domain/staff';

/** The cache scope of the users' names that reads show as billed_by_name. */
export const USER_NAMES_SCOPE = refScope('user');

export class BillingReferences {
  /** Branches and users, kept in the cache. */
  private readonly kept: ReferenceCache;

  constructor(
    private readonly refs: ReferenceData,
    private readonly cache: Pick<VersionedCache, 'get' | 'bump'>,
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

  /**
   * The staff user a caller is: a `sub` that is a user id names that user (known when a live record has it);
   * another text, the live user whose record carries it as `subject`; null when none does.
   */
  async staffOf(caller: Pick<Caller, 'sub'>): Promise<StaffUser | null> {
    const id = userIdOf(caller.sub);
    if (id !== null) {
      const user = await this.kept.get('user', id);
      return { user_id: id, name: user?.name ?? null, known: user !== null };
    }
    const found = (await this.bySubject()).get(String(caller.sub));
    return found ? { user_id: found.id, name: found.name, known: true } : null;
  }

  /** The users carrying an identity provider's subject, kept until a user record is applied. */
  private bySubject(): Promise<Map<string, { id: number; name: string }>> {
    return this.cache.get(refScope('user'), 'subjects', async () => {
      const users = await this.refs
        .collection('user')
        .find({ subject: { $exists: true }, deleted: false } as never)
        .toArray();
      return new Map(users.map((u) => [u.subject as string, { id: u.id, name: u.name }]));
    });
  }
}
