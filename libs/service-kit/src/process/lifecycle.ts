import closeWithGrace from 'close-with-grace';
import type { Logger } from './logger';

/**
 * Runs `shutdown` once, then exits (close-with-grace): on SIGTERM, SIGINT and
 * the other terminating signals with 0 when it succeeds, and on an uncaught
 * exception or unhandled rejection with 1. A second signal, or a shutdown
 * that fails or takes longer than `timeoutMs`, exits with 1 at once.
 */
export function onShutdownSignal(log: Logger, shutdown: () => Promise<void>, timeoutMs = 10_000): void {
  closeWithGrace(
    {
      delay: timeoutMs,
      logger: { error: (err: unknown) => log.error({ err }, 'shutdown failed') },
      onSecondSignal: (signal) => log.warn({ signal }, 'second signal: exiting now'),
      onSecondError: (err) => log.error({ err }, 'error while shutting down: exiting now'),
      onTimeout: () => log.error('shutdown took too long: exiting'),
    },
    async ({ signal, err }) => {
      if (err) log.fatal({ err }, 'uncaught error: shutting down');
      else log.info({ signal }, 'shutting down');
      await shutdown();
      log.info('stopped');
    },
  );
}

/** Logs and exits on a failure at start-up, so a supervisor restarts the process. */
export function exitOnStartupFailure(log: Logger) {
  return (err: unknown): never => {
    log.fatal({ err }, 'start-up failed');
    process.exit(1);
  };
}

/**
 * Runs a process: `start` starts it and answers how to stop what it started,
 * which runs on a shutdown signal (onShutdownSignal); a failure to start
 * exits (exitOnStartupFailure).
 */
export async function runProcess(log: Logger, start: () => Promise<() => Promise<void>>): Promise<void> {
  try {
    onShutdownSignal(log, await start());
  } catch (err) {
    exitOnStartupFailure(log)(err);
  }
}
