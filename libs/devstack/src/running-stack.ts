/**
 * What `npm start` writes for the tools that run beside it (DATA_DIR/stack.json,
 * 0600): where its NATS and gateway are, and the CA they verify NATS against.
 * Tools (backup, seed, provision, token, bench) read it, so that a stack on
 * other ports or with NATS_TLS=1 needs no variables; NATS_URL,
 * NATS_TLS_CA_FILE, NATS_USER and NATS_PASSWORD still win.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { natsPasswordOf } from './secrets';

export const RUNNING_STACK_FILE = 'stack.json';

export interface RunningStack {
  nats_url: string;
  nats_tls_ca_file: string | null;
  gateway_url: string;
  /** The gateway's HTTPS CA, when it serves HTTPS with a local one. */
  gateway_ca_file: string | null;
  pid: number;
  started_at: string;
}

export function writeRunningStack(dataDir: string, stack: Omit<RunningStack, 'pid' | 'started_at'>): void {
  const file = join(dataDir, RUNNING_STACK_FILE);
  const content: RunningStack = { ...stack, pid: process.pid, started_at: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}

export function forgetRunningStack(dataDir: string): void {
  rmSync(join(dataDir, RUNNING_STACK_FILE), { force: true });
}

export function readRunningStack(dataDir: string): RunningStack | null {
  const file = join(dataDir, RUNNING_STACK_FILE);
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as RunningStack;
}

export interface ToolNatsSettings {
  url: string;
  user: string;
  password: string;
  tlsCaFile?: string;
}

/** How a tool reaches the stack of `dataDir` as `user`: the environment first, then what npm start wrote. */
export function toolNatsSettings(
  dataDir: string,
  user: string,
  env: NodeJS.ProcessEnv = process.env,
): ToolNatsSettings {
  const running = readRunningStack(dataDir);
  const name = env.NATS_USER || user;
  return {
    url: env.NATS_URL || running?.nats_url || 'nats://127.0.0.1:4222',
    user: name,
    password: env.NATS_PASSWORD || natsPasswordOf(name, dataDir, env),
    tlsCaFile: env.NATS_TLS_CA_FILE || running?.nats_tls_ca_file || undefined,
  };
}
