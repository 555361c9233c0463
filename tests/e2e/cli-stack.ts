/**
 * The setup of cli.test.ts, kept apart so that the test file reads as its tests: the stack (the beforeAll
 * and afterAll below run in the file that imports this module), its seed and helpers.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort, REPO_ROOT } from '@clinic/devstack';
import { eventually } from './harness';

export const run = promisify(execFile);
export const cli = (name: string) => join(REPO_ROOT, 'tools', 'cli', 'dist', `${name}.js`);

export let dataDir: string;
export let start: ChildProcess;
export let stdout = '';
export let stderr = '';
export let ports: { gateway: number; nats: number; db: number };
export let url: string;
export let adminToken: string;

export function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const {
    JWT_SECRET: _secret,
    NATS_URL: _nats,
    MONGO_URL: _mongo,
    OTEL_EXPORTER_OTLP_ENDPOINT: _otlp,
    ...rest
  } = process.env;
  return {
    ...rest,
    DATA_DIR: dataDir,
    PORT: String(ports.gateway),
    NATS_PORT: String(ports.nats),
    DB_PORT: String(ports.db),
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

export function startStack(): ChildProcess {
  stdout = '';
  stderr = '';
  const child = spawn(process.execPath, [cli('start')], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return child;
}

/** Starts the stack again after a test stopped it; the file's afterAll stops it. */
export function restartStack(): void {
  start = startStack();
}

export async function waitForBanner(): Promise<void> {
  await eventually(async () => (/Admin token[^\n]*\n(\S+)/.test(stdout) ? true : undefined), 90_000, 200).catch(
    (err) => {
      throw new Error(`${(err as Error).message}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    },
  );
  adminToken = /Admin token[^\n]*\n(\S+)/.exec(stdout)![1]!;
  url = /Clinic API:\s+(\S+)/.exec(stdout)![1]!;
}

export async function stopStack(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

export const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'clinic-cli-'));
  ports = { gateway: await freePort(), nats: await freePort(), db: await freePort() };
  start = startStack();
  await waitForBanner();
});

afterAll(async () => {
  if (start?.exitCode === null) await stopStack(start);
  rmSync(dataDir, { recursive: true, force: true });
});
