import type { Logger } from './logger';

/**
 * Runs `shutdown` once on SIGTERM or SIGINT, then exits; a second signal or a
 * shutdown that takes longer than `timeoutMs` exits at once.
 */
export function onShutdownSignal(log: Logger, shutdown: () => Promise<void>, timeoutMs = 10_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown took too long: exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    shutdown()
      .then(() => {
        log.info('stopped');
        process.exit(0);
      })
      .catch((err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

/** Logs and exits on a failure at start-up, so a supervisor restarts the process. */
export function exitOnStartupFailure(log: Logger) {
  return (err: unknown): never => {
    log.fatal({ err }, 'start-up failed');
    process.exit(1);
  };
}
