/**
 * The gateway built in-process (buildGateway, asked through fastify's inject)
 * over a real nats-server with the contracts' users and permissions, and stub
 * services that answer its requests as a test says: what the gateway-*.test.ts
 * files stand on. No database and no service runs; the NATS server's streams
 * are provisioned, so that the reply cache can read the versions.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { headers as natsHeaders, type Msg, type NatsConnection } from 'nats';
import { createSigner } from 'fast-jwt';
import pino from 'pino';
import { requestSubjectsOf, type ServiceName } from '@clinic/contracts';
import { provisionStack, signToken, startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { connectNats, readEnv, type Logger } from '@clinic/service-kit/internal';
import { buildGateway } from '../../services/gateway/src/app';
import { GATEWAY_PROCESS_ENV, gatewayConfig } from '../../services/gateway/src/config';
import { ReplyCache } from '../../services/gateway/src/reply-cache';

/** Never dialled: nothing here reads a database. */
const NO_DATABASE = 'mongodb://127.0.0.1:9/unused';

/** What a stub service received: the subject, the payload as text and the headers. */
export interface Received {
  subject: string;
  data: string;
  headers: Record<string, string>;
}

/** Answers the requests of one service's subjects, in the service's queue group, as its NATS user may. */
export interface StubService {
  nc: NatsConnection;
  received: Received[];
  /** What it does with each request; a test may set another. */
  answer: (msg: Msg) => void;
}

/** What a gateway-*.test.ts file stands on, set before its tests. */
export interface GatewayFile {
  /** The file's gateway, built with its `env`. */
  readonly app: FastifyInstance;
  /** Stubs of these services; before each test they forget what they received and answer with their default again. */
  readonly catalogue: StubService;
  readonly billing: StubService;
  /** Another gateway with these variables beyond the rig's (NATS, the token key, no reply cache). */
  gateway(env?: Record<string, string>): Promise<FastifyInstance>;
  /** A connection as a process's NATS user. */
  connect(user: keyof Infrastructure['natsPasswords']): Promise<NatsConnection>;
  /** A valid token of `role`. */
  token(role: string, sub?: number | string): string;
  /** A token of `role`, well signed, that expired an hour ago. */
  expiredToken(role: string): string;
  /** The lines the gateways logged, parsed. */
  logLines(): Array<Record<string, unknown>>;
}

export interface GatewayFileOptions {
  /** The file's gateway's variables beyond the rig's. */
  env?: Record<string, string>;
  /** What the stubs answer by default (a test may set another): a success with nothing more in it. */
  answer?: (msg: Msg) => void;
}

/** A success with nothing more in it. */
const answerOk = (msg: Msg) => replyWith(msg, { status: 200, body: { success: true } });

/**
 * NATS started for the file before its tests (with the file's gateway and the stubs), stopped after them; all
 * gateways, stubs and connections go with it.
 */
export function fileGateway(name: string, options: GatewayFileOptions = {}): GatewayFile {
  const secret = randomBytes(32).toString('hex');
  let rig: Rig | undefined;
  let app: FastifyInstance | undefined;
  const stubs: Partial<Record<'catalogue' | 'billing', StubService>> = {};
  const answer = options.answer ?? answerOk;
  beforeAll(async () => {
    rig = await startRig(name, secret);
    app = await rig.gateway(options.env);
    stubs.catalogue = await rig.stub('catalogue', answer);
    stubs.billing = await rig.stub('billing', answer);
  }, 60_000);
  beforeEach(() => {
    for (const stub of Object.values(stubs)) {
      stub.received.length = 0;
      stub.answer = answer;
    }
  });
  afterAll(() => rig?.stop());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the rig starts in beforeAll');
    return value;
  };
  return {
    get app() {
      return started(app);
    },
    get catalogue() {
      return started(stubs.catalogue);
    },
    get billing() {
      return started(stubs.billing);
    },
    gateway: (env) => started(rig).gateway(env),
    connect: (user) => started(rig).connect(user),
    token: (role, sub = 1) => signToken({ sub, role }, { algorithm: 'HS256', key: secret }),
    expiredToken: (role) =>
      createSigner({ key: secret, algorithm: 'HS256', expiresIn: 3_600_000, clockTimestamp: Date.now() - 7_200_000 })({
        sub: 1,
        role,
      }),
    logLines: () => started(rig).logLines(),
  };
}

interface Rig {
  gateway(env?: Record<string, string>): Promise<FastifyInstance>;
  stub(service: ServiceName, answer: (msg: Msg) => void): Promise<StubService>;
  connect(user: string): Promise<NatsConnection>;
  logLines(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

async function startRig(name: string, secret: string): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), `clinic-${name}-`));
  const lines: string[] = [];
  const log: Logger = pino(
    { level: 'info', formatters: { level: (label) => ({ level: label }) } },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    }),
  );
  const connections: NatsConnection[] = [];
  const closers: Array<() => Promise<unknown>> = [];
  let infra: Infrastructure | undefined;
  const stop = async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    for (const nc of connections) if (!nc.isClosed()) await nc.close();
    await infra?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const connect = async (user: string) => {
    const nc = await connectNats(
      { url: infra!.natsUrl, user, password: infra!.natsPasswords[user] },
      { name: `${name}-${user}`, log },
    );
    connections.push(nc);
    return nc;
  };
  try {
    infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs'), mongoUrl: NO_DATABASE });
    await provisionStack(infra, {});
  } catch (err) {
    await stop();
    throw err;
  }
  const { natsUrl, natsPasswords } = infra;
  return {
    async gateway(env = {}) {
      const config = gatewayConfig(
        readEnv(GATEWAY_PROCESS_ENV, {
          NATS_URL: natsUrl,
          NATS_USER: 'gateway',
          NATS_PASSWORD: natsPasswords.gateway,
          JWT_SECRET: secret,
          REPLY_CACHE_ENTRIES: '0',
          ...env,
        }),
      );
      const nc = await connect('gateway');
      const replies = ReplyCache.start(nc, log, config.replyCache);
      const app = await buildGateway({ config, nc, log, replies });
      closers.push(() => app.close());
      return app;
    },
    async stub(service, answer) {
      const nc = await connect(service);
      const stub: StubService = { nc, received: [], answer };
      for (const subject of requestSubjectsOf(service)) {
        nc.subscribe(subject, {
          queue: service,
          callback: (_err, msg) => {
            const headers = Object.fromEntries((msg.headers?.keys() ?? []).map((key) => [key, msg.headers!.get(key)]));
            stub.received.push({ subject: msg.subject, data: msg.string(), headers });
            stub.answer(msg);
          },
        });
      }
      await nc.flush();
      return stub;
    },
    connect,
    logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    stop,
  };
}

/** A service's reply, `{status, [etag,] body}` as services write it, with the request's correlation id. */
export function replyWith(
  msg: Msg,
  reply: { status: number; etag?: string; body: unknown },
  extra: Record<string, string> = {},
) {
  respondRaw(msg, JSON.stringify(reply), extra);
}

/** Bytes of the test's own as the reply, with the request's correlation id and `extra` headers. */
export function respondRaw(msg: Msg, data: string | Uint8Array, extra: Record<string, string> = {}) {
  const h = natsHeaders();
  const correlationId = msg.headers?.get('x-correlation-id');
  if (correlationId) h.set('x-correlation-id', correlationId);
  for (const [key, value] of Object.entries(extra)) h.set(key, value);
  msg.respond(typeof data === 'string' ? new TextEncoder().encode(data) : data, { headers: h });
}

/** An answer's status, headers and body, parsed when it is JSON. */
export async function ask(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS' | 'PATCH',
  url: string,
  options: { token?: string; headers?: Record<string, string>; body?: string | object } = {},
) {
  const res = await app.inject({
    method,
    url,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined
      ? { payload: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
      : {}),
  });
  const json = /json/.test(String(res.headers['content-type'])) ? (JSON.parse(res.body) as unknown) : undefined;
  return { status: res.statusCode, headers: res.headers, body: res.body, raw: res.rawPayload, json };
}
