/** Users' names, from the reference data billing keeps, for the reads that show who did what. */
import type { Logger } from '@clinic/service-kit';
import type { ReferenceData } from '@clinic/service-kit/storage';

/** The names of those of these users that are known (only integer ids name reference users). */
export async function userNames(refs: ReferenceData, ids: Array<number | string | null>): Promise<Map<number, string>> {
  const known = ids.filter((id): id is number => typeof id === 'number');
  const users = await refs.many('user', known);
  return new Map([...users].map(([id, user]) => [id, user.name]));
}

/**
 * userNames for an answer whose write has landed (or must not fail for a
 * name): a failed read leaves the names out (null in the answer) rather than
 * answering 500 for money that was recorded, which a client without an
 * Idempotency-Key would then pay again.
 */
export async function namesIfReadable(
  refs: ReferenceData,
  ids: Array<number | string | null>,
  log: Logger,
): Promise<Map<number, string>> {
  try {
    return await userNames(refs, ids);
  } catch (err) {
    log.warn({ err }, 'users’ names not read; answered without them');
    return new Map();
  }
}
