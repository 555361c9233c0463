/** The stack a benchmark measures: its own on the embedded default, or one given by GATEWAY_URL. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsUser } from '@clinic/contracts';
import {
  dataDirFromEnv,
  natsPasswords,
  readRunningStack,
  signingKeyOf,
  signToken,
  Stack,
  type SigningKey,
} from '@clinic/devstack';

export interface Target {
  gatewayUrl: string;
  token: string;
  /** Another admin token for user 1, distinct by its lifetime in seconds. */
  mint(expiresInSeconds: number): string;
  /** For the direct-to-service baseline and seeding; absent with GATEWAY_URL unless NATS_URL is given. */
  nats?: { url: string; passwords: Record<NatsUser, string> };
  /** For the bill-number check and the bulk load; the API is used without it. */
  mongoUrl?: string;
  /** The stack this run started (absent with GATEWAY_URL, which is expected to hold npm start's demo data). */
  stack?: Stack;
  stop(): Promise<void>;
}

/** The bench's admin token for user 1, and others like it, distinct by their lifetime in seconds. */
export function adminTokens(signing: SigningKey): Pick<Target, 'token' | 'mint'> {
  const mint = (expiresInSeconds: number) => signToken({ sub: 1, role: 'admin', expiresInSeconds }, signing);
  return { token: mint(8 * 3600), mint };
}

export async function startTarget(): Promise<Target> {
  if (process.env.GATEWAY_URL) {
    const dataDir = dataDirFromEnv();
    // GATEWAY_URL=running: the stack npm start runs on DATA_DIR, as its stack.json says.
    const running = process.env.GATEWAY_URL === 'running' ? readRunningStack(dataDir) : null;
    if (process.env.GATEWAY_URL === 'running' && !running)
      throw new Error(`GATEWAY_URL=running: no stack runs on ${dataDir} (npm start writes stack.json there)`);
    // The key of that stack: JWT_PRIVATE_KEY or JWT_SECRET, else the secret npm start made in DATA_DIR.
    const signing = signingKeyOf(dataDir);
    if (!signing)
      throw new Error('GATEWAY_URL: set JWT_SECRET (or DATA_DIR to the folder of the npm start that serves it)');
    const natsUrl = process.env.NATS_URL || running?.nats_url;
    return {
      gatewayUrl: (running?.gateway_url ?? process.env.GATEWAY_URL).replace(/\/$/, ''),
      ...adminTokens(signing),
      nats: natsUrl ? { url: natsUrl, passwords: natsPasswords(dataDir) } : undefined,
      mongoUrl: process.env.MONGO_URL,
      stop: async () => undefined,
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-bench-'));
  const stack = await Stack.start({
    dataDir,
    infra: 'local',
    serviceOutput: 'file',
    env: {
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      REQUEST_TIMEOUT_MS: '30000',
      // BENCH_PROFILE_DIR: every Node process of the stack can be profiled on a signal (cpu-profiler.ts).
      ...(process.env.BENCH_PROFILE_DIR ? { NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profiler.js')}` } : {}),
    },
  });
  return {
    gatewayUrl: stack.gatewayUrl,
    ...adminTokens(stack.signingKey()),
    nats: { url: stack.infra.natsUrl, passwords: stack.infra.natsPasswords },
    mongoUrl: stack.infra.mongoUrl,
    stack,
    async stop() {
      await stack.stop();
      if (!process.env.BENCH_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function api(target: Target, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${target.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}
