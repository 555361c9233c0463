/**
 * Database command durations for Prometheus, timed at the MongoDB driver's
 * connection. Storage's own, so that the storage-free metrics (metrics.ts)
 * never reach for the driver.
 */
import { performance } from 'node:perf_hooks';
import type { MongoClient } from 'mongodb';
import { histogram, metricsEnabled } from '../process/metrics';

const dbCommandSeconds = histogram(
  'clinic_db_command_duration_seconds',
  "Database commands' round trips as the driver times them, by command and outcome",
  ['command', 'outcome'],
  [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
);

interface DriverConnectionClass {
  prototype: {
    command(this: unknown, ns: unknown, command: Record<string, unknown>, ...rest: unknown[]): Promise<unknown>;
  } & { [TIMED]?: true };
}

const TIMED = Symbol.for('clinic.mongodb.commandsTimed');

/**
 * Times every database command this process sends, by wrapping the driver's
 * Connection.prototype.command (as mongo-driver-fix.ts wraps writeCommand).
 * The driver's command monitoring events would be the public way, but with
 * them on the driver deserializes every reply a second time to put it in the
 * event (connection.js, sendCommand): a find's whole batch twice. Should the
 * internals change, command monitoring takes over (`mongoMonitoringOptions`).
 */
function timeDriverCommands(): boolean {
  let Connection: DriverConnectionClass | undefined;
  try {
    ({ Connection } = require('mongodb/lib/cmap/connection') as { Connection?: DriverConnectionClass });
  } catch {
    return false;
  }
  const proto = Connection?.prototype;
  if (!proto || typeof proto.command !== 'function') return false;
  if (proto[TIMED]) return true;
  const original = proto.command;
  proto.command = async function timedCommand(ns, command, ...rest) {
    const started = performance.now();
    const name = Object.keys(command ?? {})[0] ?? 'unknown';
    try {
      const reply = await original.call(this, ns, command, ...rest);
      dbCommandSeconds.observe({ command: name, outcome: 'ok' }, (performance.now() - started) / 1000);
      return reply;
    } catch (err) {
      dbCommandSeconds.observe({ command: name, outcome: 'error' }, (performance.now() - started) / 1000);
      throw err;
    }
  };
  proto[TIMED] = true;
  return true;
}

let commandsTimed: boolean | null = null;

/** Options for a MongoClient: command monitoring only where the driver's commands cannot be timed directly. */
export function mongoMonitoringOptions(): { monitorCommands?: boolean } {
  if (!metricsEnabled()) return {};
  commandsTimed ??= timeDriverCommands();
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
