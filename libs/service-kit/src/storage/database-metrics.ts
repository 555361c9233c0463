/**
 * Database command durations for Prometheus, timed at the MongoDB driver's
 * connection (mongo-driver-internals.ts) or, should that fail, from command monitoring. Storage's own, so that
 * the storage-free metrics (metrics.ts) never reach for the driver.
 */
import type { MongoClient } from 'mongodb';
import { histogram, metricsEnabled } from '../process/metrics';
import { timeDriverCommands } from './mongo-driver-internals';

const dbCommandSeconds = histogram(
  'clinic_db_command_duration_seconds',
  "Database commands' round trips as the driver times them, by command and outcome",
  ['command', 'outcome'],
  [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
);

let commandsTimed: boolean | null = null;

/** Options for a MongoClient: command monitoring only where the driver's commands cannot be timed directly. */
export function mongoMonitoringOptions(): { monitorCommands?: boolean } {
  if (!metricsEnabled()) return {};
  commandsTimed ??= timeDriverCommands((command, outcome, ms) =>
    dbCommandSeconds.observe({ command, outcome }, ms / 1000),
  );
  return commandsTimed ? {} : { monitorCommands: true };
}

/** Times the database commands of `client` from command monitoring events, when they are on for it. */
export function observeDatabaseCommands(client: MongoClient): void {
  if (!metricsEnabled() || commandsTimed) return;
  client.on('commandSucceeded', (event) =>
    dbCommandSeconds.observe({ command: event.commandName, outcome: 'ok' }, event.duration / 1000),
  );
  client.on('commandFailed', (event) =>
    dbCommandSeconds.observe({ command: event.commandName, outcome: 'error' }, event.duration / 1000),
  );
}
