import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** The repository root (this file lives in libs/devstack/dist). */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const TOOLS_BIN = join(REPO_ROOT, '.tools', 'bin');

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findOnPath(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...extraDirs];
  return dirs.map((dir) => join(dir, name)).find(isExecutable);
}

/**
 * The nats-server release the stack runs everywhere (npm start, tests, CI),
 * built by scripts/bootstrap.sh into .tools/bin; docs/operations.md says why this one.
 */
export const NATS_SERVER_VERSION = 'v2.12.15';
/** The container image of the same release (docker compose, testcontainers). */
export const NATS_IMAGE_TAG = `${NATS_SERVER_VERSION.slice(1)}-alpine`;

/** NATS_SERVER_BIN, else the pinned build in .tools/bin, else one on the PATH. */
export function natsServerBinary(): string {
  const configured = process.env.NATS_SERVER_BIN;
  const pinned = join(TOOLS_BIN, 'nats-server');
  const found =
    configured ?? (isExecutable(pinned) ? pinned : findOnPath('nats-server', ['/usr/sbin', '/usr/local/sbin']));
  if (!found) throw new Error('nats-server not found: run `npm run bootstrap` (or set NATS_SERVER_BIN)');
  return found;
}

export function ferretDbBinary(): string {
  const path = process.env.FERRETDB_BIN ?? join(TOOLS_BIN, 'clinic-ferretdb');
  if (!isExecutable(path)) throw new Error(`${path} not found: run \`npm run bootstrap\` (or set FERRETDB_BIN)`);
  return path;
}

/**
 * The environment of the local Go servers (nats-server, the embedded database). Their live heaps are small and
 * churn fast, so Go's default GOGC=100 collected several hundred times a second under writes: 400 took a third off
 * the database's CPU per payment (docs/PERFORMANCE.md). GOGC in the environment wins.
 */
export const goServerEnv = () => ({ GOGC: process.env.GOGC ?? '400' });

export function serviceEntry(name: string): string {
  return join(REPO_ROOT, 'services', name, 'dist', 'main.js');
}
