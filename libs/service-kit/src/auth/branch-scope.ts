/**
 * Branch scope: a token with `store_ids` reaches those branches only; one
 * without reaches every branch, as before the claim. A handler asks with its
 * HandlerContext: refuse a branch the request names (403), hide a record of
 * another branch (404, as if it did not exist), keep a list to the caller's.
 */
import type { Caller } from '@clinic/contracts';
import { fail, type NotFoundCode } from '../domain/errors';

/** What a request acts for (a HandlerContext is one). */
export interface ActingFor {
  caller: Caller | null;
}

/** The branches the caller is limited to, or null when it reaches every branch. */
export function branchesOf(ctx: ActingFor): readonly number[] | null {
  return ctx.caller?.store_ids ?? null;
}

/** Whether the caller reaches branch `storeId`. */
export function reachesBranch(ctx: ActingFor, storeId: number | null): boolean {
  const branches = branchesOf(ctx);
  return branches === null || (storeId !== null && branches.includes(storeId));
}

/** For a branch the request names (a list's, a report's, a create's `store_id`): 403 `Not allowed for this branch.` outside the caller's. */
export function requireBranch(ctx: ActingFor, storeId: number): void {
  if (!reachesBranch(ctx, storeId)) throw fail('BRANCH_NOT_ALLOWED');
}

/** For a record found by its id: the record, or 404 with the record's `notFound` code when it is absent or of another branch. */
export function foundInBranch<T extends { store_id: number | null }>(
  ctx: ActingFor,
  record: T | null | undefined,
  notFound: NotFoundCode,
): T {
  if (!record || !reachesBranch(ctx, record.store_id)) throw fail(notFound);
  return record;
}

/** For a list that names no branch: the records of the caller's branches. */
export function withinBranches<T extends { store_id: number | null }>(ctx: ActingFor, records: readonly T[]): T[] {
  return records.filter((record) => reachesBranch(ctx, record.store_id));
}
