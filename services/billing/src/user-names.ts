/** Users' names, from the reference data billing keeps, for the reads that show who did what. */
import type { ReferenceData } from '@clinic/service-kit';

/** The names of those of these users that are known (only integer ids name reference users). */
export async function userNames(refs: ReferenceData, ids: Array<number | string | null>): Promise<Map<number, string>> {
  const known = ids.filter((id): id is number => typeof id === 'number');
  const users = await refs.many('user', known);
  return new Map([...users].map(([id, user]) => [id, user.name]));
}
