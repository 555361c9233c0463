/**
 * The handle a write gets on the outbox entries it stored ahead of itself
 * (PreparedEvents): release, settle, discard or forget them, and the bounds
 * of the write they describe.
 */
import type { Collection } from 'mongodb';
import { REQUEST_MESSAGES } from '@clinic/contracts';
import type { CarriedDocs } from './carried-docs';
import { ServiceError } from '../domain/errors';
import type { Logger } from '../process/logger';
import { deleteByKeys } from './database-quirks';
import type { OutboxEntry, PreparedEvents, StoredOutboxEntry } from './outbox-entries';

/** A write whose write window passed before it was sent is refused with this (503): nothing was written. */
export const WRITE_TOO_LATE_MESSAGE = REQUEST_MESSAGES.writeTooLate;

/** Less than this left of a write window is too little for the write: it is refused. */
const WRITE_MIN_MS = 50;

/**
 * The server's time limit for a write that may be sent until `sendBy` (the
 * end of its write window, on Date.now()'s clock). Throws a ServiceError
 * (503) when too little is left: the write must not be sent.
 */
export function timeLeftToWrite(sendBy: number, now = Date.now()): number {
  const left = sendBy - now;
  if (left < WRITE_MIN_MS) throw new ServiceError(503, WRITE_TOO_LATE_MESSAGE, 'SERVICE_BUSY');
  return left;
}

/** What of the outbox a preparation works with. */
export interface PreparationHost {
  /** Entries this process is writing, queuing or publishing; the sweeper leaves them alone. */
  owned: Set<string>;
  outbox: Collection<StoredOutboxEntry | OutboxEntry>;
  carried: CarriedDocs;
  log: Logger;
  /** How long after storedAt a write may still be sent. */
  writeWindowMs: number;
  /** Hands entries to the relay. */
  hand(entries: OutboxEntry[]): void;
}

export function preparedEvents(entries: OutboxEntry[], storedAt: Date, host: PreparationHost): PreparedEvents {
  const pick = (eventIds?: string[]) => {
    if (!eventIds) return entries;
    const wanted = new Set(eventIds);
    return entries.filter((e) => wanted.has(e._id));
  };
  const release = (eventIds?: string[]) => host.hand(pick(eventIds));
  const discard = async (eventIds?: string[]) => {
    const chosen = pick(eventIds);
    for (const entry of chosen) host.owned.delete(entry._id);
    await deleteByKeys(
      host.outbox,
      chosen.map((e) => e._id),
    );
  };
  return {
    entries,
    storedAt,
    release,
    settle: async (eventIds) => {
      try {
        await host.carried.storeTogether(pick(eventIds));
      } catch (err) {
        host.log.warn({ err }, 'documents carried by a committed write not stored yet; the relay will store them');
      }
      release(eventIds);
    },
    discard,
    forget: (eventIds) => {
      for (const entry of pick(eventIds)) host.owned.delete(entry._id);
    },
    beforeWrite: async (step) => {
      try {
        return await step();
      } catch (err) {
        // The write will never be attempted: its entries (and their fences) go now, not after the grace
        // period. Should the delete fail, they are no longer this process's, and the sweeper drops them.
        await discard().catch(() => undefined);
        throw err;
      }
    },
    writeOptions: () => ({ maxTimeMS: timeLeftToWrite(storedAt.getTime() + host.writeWindowMs) }),
  };
}
