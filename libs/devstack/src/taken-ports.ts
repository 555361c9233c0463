import { freeListeningPort } from './ports';
import type { ManagedProcess } from './process';

const ADDRESS_IN_USE = /EADDRINUSE: address already in use [^"\s]*:(\d+)/g;

/** The port a process's log says it could not bind, the last time it failed to. */
export function portFoundInUse(log: string): string | undefined {
  return [...log.matchAll(ADDRESS_IN_USE)].at(-1)?.[1];
}

/**
 * A port the stack picked was free when picked, but another process (a parallel
 * test file's stack picks from the same range) can bind it before the child
 * does. When `proc` exited because the port under one of `keys` in its
 * environment was taken, that key gets a fresh port and is returned; else null.
 */
export async function repickTakenPort(proc: ManagedProcess, keys: readonly string[]): Promise<string | null> {
  const env = proc.spec.env;
  if (proc.unexpectedExit === null || !env) return null;
  const taken = portFoundInUse(proc.logTail());
  const key = keys.find((k) => taken !== undefined && env[k] === taken);
  if (!key) return null;
  env[key] = String(await freeListeningPort());
  return key;
}
