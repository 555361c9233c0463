/** What billing's operations take from a request besides its message: its Idempotency-Key, and who moves money when. */
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import type { Caller } from '@clinic/contracts';
import type { ClinicClock, HandlerContext } from '@clinic/service-kit';
import { newEventId } from '@clinic/service-kit/storage';
import type { Mover } from './money-rules';
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

/** The caller moves money today, on the clinic's clock; each entry is named by its event's id. */
export function moverOf(caller: Caller, clock: ClinicClock): Mover {
  const at = new Date();
  return { by: caller, day: (clock.timestamp(at) as string).slice(0, 10), at, newId: newEventId };
}
