import './tracing';
import { startService } from '@clinic/service-kit';
import { sessionsHandlers } from './adapter';
import { SessionRepository } from './repository';
import { SessionOperations } from './sessions';

/** How often this process retries its own failed rollbacks, and looks for runs others abandoned. */
const ROLLBACK_RETRY_MS = 2_000;
const ABANDONED_SCAN_MS = 30_000;

void startService({
  name: 'sessions',
  async setup({ db, ids, outbox, clock, refs, log, cache, locks }) {
    const repo = new SessionRepository(db, ids, outbox, refs, clock, cache);
    await repo.ensureIndexes();
    // Doctors, stores and appointments appear in every session read.
    refs.onApplied(() => repo.bumpCacheVersion());
    const operations = new SessionOperations(repo, refs, outbox, clock, locks);
    const scan = () => repo.rollBackAbandonedRuns(log).catch((err: unknown) => log.warn({ err }, 'abandoned-run scan failed'));
    await scan();
    setInterval(scan, ABANDONED_SCAN_MS).unref();
    setInterval(() => operations.finishRollbacks().catch(() => undefined), ROLLBACK_RETRY_MS).unref();
    return sessionsHandlers(operations);
  },
});
