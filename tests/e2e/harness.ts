/**
 * End-to-end harness: each test file gets its own NATS server and database
 * (testcontainers when a Docker engine answers, local binaries otherwise), its
 * own services and gateway, all on free ports, so every file starts clean.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from 'nats';
import { createClinicClient, type ClinicClient } from '@clinic/client';
import type { NatsUser, ServiceName } from '@clinic/contracts';
import {
  freeListeningPort,
  httpRequest,
  localGatewayTls,
  ManagedProcess,
  natsClientSettings,
  parseSeedFile,
  seedReferenceData,
  signToken,
  Stack,
  type InfraChoice,
  type SeedResult,
  type StackOptions,
  waitFor,
} from '@clinic/devstack';
import { connectNats, createLogger } from '@clinic/service-kit';
import { checkFailureEnvelope } from './failure-envelopes';

export { checkFailureEnvelope, DEGRADED, expectRefusals, failureOf } from './failure-envelopes';

/** This test process's own HS256 secret (made at random: no secret is written in the repository). */
export const TEST_JWT_SECRET = randomBytes(32).toString('base64url');
/** A zone far from UTC, so that "today" and timestamps prove they use CLINIC_TZ. */
export const TEST_TZ = 'Asia/Colombo';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string | null;
  role?: string;
  sub?: number | string;
  headers?: Record<string, string>;
  /** Sent as-is instead of JSON. */
  rawBody?: string | Buffer;
  /** Another gateway's URL than the stack's own (a second gateway a test started). */
  baseUrl?: string;
}

export interface TestStack {
  stack: Stack;
  url: string;
  /** A token signed with the stack's key; `storeIds`: its `store_ids` claim (absent: every branch). */
  token(role?: string, sub?: number | string, expiresInSeconds?: number, storeIds?: readonly number[]): string;
  request<T = any>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  get<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  put<T = any>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  del<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /**
   * The typed client (@clinic/client) as a caller with these options (token, role, sub, headers): what a front end
   * calls the API with. `answerOf` turns its answer into an ApiResponse.
   */
  api(options?: RequestOptions): ClinicClient;
  /** A NATS connection of its own, as the given user (by default another hospital system). */
  nats(user?: NatsUser): Promise<NatsConnection>;
  /** Seeds reference data exactly as `npm run seed` does. */
  seed(file: unknown): Promise<SeedResult>;
  stop(): Promise<void>;
}

export interface TestStackOptions {
  replicas?: Partial<Record<ServiceName, number>>;
  env?: Record<string, string>;
  infra?: InfraChoice;
  /** NATS nodes: 1, or 3 for a cluster (default: NATS_CLUSTER, else 1). */
  natsCluster?: number;
  natsNetwork?: StackOptions['natsNetwork'];
  supervise?: StackOptions['supervise'];
  /** NATS over TLS, with a local CA every process and test client verifies the servers against. */
  natsTls?: boolean;
  /** The gateway serves HTTPS with a certificate of the same local CA; requests trust that CA only. */
  gatewayTls?: boolean;
  /** Start on this data folder (kept afterwards) instead of a new temporary one. */
  dataDir?: string;
}

export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'clinic-e2e-'));
  const stack = await Stack.start({
    dataDir,
    infra: options.infra ?? (process.env.CLINIC_TEST_INFRA as InfraChoice | undefined) ?? 'auto',
    serviceOutput: 'file',
    replicas: options.replicas,
    natsCluster: options.natsCluster ?? (Number(process.env.NATS_CLUSTER) || 1),
    natsNetwork: options.natsNetwork,
    supervise: options.supervise,
    natsTls: options.natsTls,
    gatewayTls: options.gatewayTls ? await localGatewayTls(dataDir) : undefined,
    env: { JWT_SECRET: TEST_JWT_SECRET, CLINIC_TZ: TEST_TZ, LOG_LEVEL: 'info', ...options.env },
  });
  const connections: NatsConnection[] = [];

  const token = (role = 'admin', sub: number | string = 1, expiresInSeconds = 3600, storeIds?: readonly number[]) =>
    signToken({ sub, role, expiresInSeconds, storeIds }, { algorithm: 'HS256', key: TEST_JWT_SECRET });

  async function request<T>(
    method: string,
    path: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    const bearer = opts.token === undefined ? token(opts.role ?? 'admin', opts.sub ?? 1) : opts.token;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let payload: string | Buffer | undefined;
    if (opts.rawBody !== undefined) payload = opts.rawBody;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const base = opts.baseUrl ?? stack.gatewayUrl;
    const response = stack.gatewayCa
      ? await httpRequest(`${base}${path}`, { method, headers, body: payload, ca: stack.gatewayCa })
      : await fetch(`${base}${path}`, { method, headers, body: payload });
    const text = response instanceof Response ? await response.text() : response.body.toString();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    checkFailureEnvelope(`${method} ${path}`, response.status, parsed);
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  const clients = new Map<string, ClinicClient>();
  const api = (opts: RequestOptions = {}): ClinicClient => {
    const key = JSON.stringify([opts.token, opts.role, opts.sub, opts.headers]);
    let client = clients.get(key);
    if (!client) {
      const bearer = opts.token === undefined ? token(opts.role ?? 'admin', opts.sub ?? 1) : opts.token;
      client = createClinicClient({ baseUrl: stack.gatewayUrl, token: bearer ?? undefined, headers: opts.headers });
      clients.set(key, client);
    }
    return client;
  };

  const nats = async (user: NatsUser = 'hospital') => {
    const nc = await connectNats(natsClientSettings(stack.infra, user), {
      name: `e2e-${user}`,
      log: createLogger('e2e', 'silent'),
      waitForServer: false,
    });
    connections.push(nc);
    return nc;
  };

  return {
    stack,
    url: stack.gatewayUrl,
    token,
    request,
    get: (path, opts) => request('GET', path, undefined, opts),
    post: (path, body, opts) => request('POST', path, body, opts),
    put: (path, body, opts) => request('PUT', path, body, opts),
    del: (path, opts) => request('DELETE', path, undefined, opts),
    api,
    nats,
    async seed(file) {
      const nc = await nats('ops');
      return seedReferenceData(nc, parseSeedFile(file));
    },
    async stop() {
      await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
      await stack.stop();
      if (!process.env.KEEP_E2E_DATA && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One more gateway in front of the stack: the first one's settings (and `env`) on ports of its own; its URL and
 * process. Its log is gateway-2.log.
 */
export async function startSecondGateway(
  t: TestStack,
  env: Record<string, string> = {},
): Promise<{ url: string; process: ManagedProcess }> {
  const { spec } = t.stack.gateway;
  const port = await freeListeningPort();
  const second = new ManagedProcess({
    ...spec,
    name: 'gateway-2',
    env: { ...spec.env, ...env, PORT: String(port), METRICS_PORT: String(await freeListeningPort()) },
    output: { kind: 'file', path: join(t.stack.logDir, 'gateway-2.log') },
  });
  second.start();
  const url = `http://127.0.0.1:${port}`;
  await waitFor('the second gateway', async () => (await fetch(`${url}/health`)).status === 200, 60_000);
  return { url, process: second };
}

/** How long a file's stack may take to start and be seeded on a busy machine. */
const STACK_START_TIMEOUT_MS = 120_000;

/**
 * The test file's stack: started, and seeded with `seed` as `npm run seed` does, before the file's tests and stopped
 * after them. Called at the top of a file, it stands in for the `beforeAll` and `afterAll` each file would write;
 * the stack it gives is there from the file's first hook on (later `beforeAll`s may seed more through it).
 */
export function fileStack(seed?: unknown, options: TestStackOptions = {}): TestStack {
  let started: TestStack | undefined;
  beforeAll(async () => {
    started = await startTestStack(options);
    if (seed !== undefined) await started.seed(seed);
  }, STACK_START_TIMEOUT_MS);
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as TestStack, {
    get(_, key) {
      if (!started) throw new Error(`the file's stack is not started yet: read its ${String(key)} in a hook or a test`);
      return started[key as keyof TestStack];
    },
  });
}

/**
 * A request the typed client's types refuse (a body of the wrong shape, a path id that is not a number): the tests
 * of refusals send it through the client as it is, to be refused by the API as the compiler refuses it.
 */
export const refused = (value: unknown): never => value as never;

/**
 * A typed client's answer (openapi-fetch's data, error and response) as the suites read answers: the status, the
 * body (the success's data or the failure's envelope, checked as every failure is) and the headers.
 */
export async function answerOf<T = any>(
  call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<ApiResponse<T>> {
  const { data, error, response } = await call;
  const body = data ?? error ?? '';
  checkFailureEnvelope(`${response.url}`, response.status, body);
  return { status: response.status, body: body as T, headers: response.headers };
}

/** A counter of a process's /metrics, summed over its label sets that contain each of `labels`. */
export async function counterOf(process: ManagedProcess, name: string, ...labels: string[]): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${process.spec.env!.METRICS_PORT}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value that is not undefined. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
