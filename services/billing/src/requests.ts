/** What billing's operations take from a request besides its message: its Idempotency-Key. */
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import type { Caller } from '@clinic/contracts';
import type { HandlerContext } from '@clinic/service-kit';
import type { IdempotencyClaim } from './storage';

/** The request's Idempotency-Key, scoped to its caller, and the hash of what it asks (`request`). */
export function idempotencyOf(ctx: HandlerContext, caller: Caller, request: unknown): IdempotencyClaim | null {
  if (!ctx.idempotencyKey) return null;
  return {
    key: `${JSON.stringify(caller.sub)}:${ctx.idempotencyKey}`,
    // JSON with sorted keys, so that the same request hashes the same however its keys are ordered.
    requestHash: createHash('sha256')
      .update(stableStringify(request) ?? 'null')
      .digest('hex'),
  };
}
