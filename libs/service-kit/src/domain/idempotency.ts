/** An Idempotency-Key as a service keeps it: scoped to its caller, with the hash of what the request asked. */
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import type { Caller } from '@clinic/contracts';

export interface IdempotencyClaim {
  /** The key, scoped to the caller who sent it. */
  key: string;
  requestHash: string;
}

/** The request's key (absent: null), and the hash of `request` (its keys sorted, so their order does not matter). */
export function idempotencyClaim(
  key: string | null | undefined,
  caller: Caller,
  request: unknown,
): IdempotencyClaim | null {
  if (!key) return null;
  return {
    key: `${JSON.stringify(caller.sub)}:${key}`,
    requestHash: createHash('sha256')
      .update(stableStringify(request) ?? 'null')
      .digest('hex'),
  };
}
