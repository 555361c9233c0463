import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { JetStreamClient, NatsConnection } from 'nats';
import type { Db } from 'mongodb';
import {
  cacheStreamOf,
  failure,
  REF_KINDS_BY_SERVICE,
  REQUEST_MESSAGES,
  ServiceSubjects,
  success,
  type ServiceName,
} from '@clinic/contracts';
import { DatabaseBreaker } from '../storage/database-breaker';
import { VersionedCache } from '../cache/versioned-cache';
import { ScopeVersions } from '../cache/scope-versions';
import { ClinicClock } from '../domain/clock';
import { setUnknownBodyFields } from '../domain/field-check';
import { serviceSettings, type ServiceSettings } from '../process/config';
import type { EnvProperties } from '../process/env';
import { runProcess } from '../process/lifecycle';
import { createLogger, type Logger } from '../process/logger';
import { startMetrics } from '../process/metrics';
import { reportCertificateExpiry } from '../process/certificate-expiry';
import { registerServiceGauges } from './service-gauges';
import { IdAllocator } from '../storage/id-allocator';
import { connectMongo } from '../storage/mongo';
import { ensureIndexes } from '../storage/database-quirks';
import { connectNats } from '../nats/nats-client';
import { whileStarting } from '../nats/jetstream';
import { Outbox } from '../storage/outbox';
import { OUTBOX_COLLECTION } from '../storage/outbox-collection';
import { ReferenceData, startReferenceConsumer, type ReferenceConsumer } from '../storage/reference-data';
import { startResponder, type Handler } from '../nats/responder';
import { createTokenVerifier } from '../auth/token-verifier';
import { stopTracing } from '../process/tracing';

/** What a service's wiring gets to build its repository, rules and NATS adapter. */
export interface ServiceInfra<Own extends EnvProperties = EnvProperties> {
  name: ServiceName;
  settings: ServiceSettings<Own>;
  log: Logger;
  nc: NatsConnection;
  js: JetStreamClient;
  db: Db;
  ids: IdAllocator;
  outbox: Outbox;
  refs: ReferenceData;
  clock: ClinicClock;
  cache: VersionedCache;
}

export interface ServiceDefinition<Own extends EnvProperties = EnvProperties> {
  name: ServiceName;
  /** The service's own environment variables, read with the kit's (settings.own). */
  env?: Own;
  /**
   * Creates indexes, registers what runs on each reference record applied (`refs.onApplied`: none is applied
   * before setup returns) and returns the handlers by subject.
   */
  setup(infra: ServiceInfra<Own>): Promise<Record<string, Handler>>;
}

const instance = `${hostname()}-${process.pid}`;

/** The release every package of the repository shares (discovery's `version`). */
const KIT_VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;

/**
 * Starts a service: NATS, its database, its events stream and outbox relay,
 * its setup, its reference-data consumer, then its subjects; and stops all of it in the
 * reverse order on SIGTERM/SIGINT.
 */
export async function startService<Own extends EnvProperties>(definition: ServiceDefinition<Own>): Promise<void> {
  const { name } = definition;
  const log = createLogger(name);
  await runProcess(log, async () => {
    const settings = serviceSettings(name, definition.env);
    const { tokens } = settings;
    const metrics = await startMetrics(name, settings.metrics, log);
    reportCertificateExpiry([settings.nats.tlsCaFile]);
    const clock = new ClinicClock(settings.clinicTz);
    setUnknownBodyFields(settings.unknownBodyFields);
    const nc = await connectNats(settings.nats, { name: `${name}-${instance}`, log });
    const mongo = await connectMongo(settings.mongoUrl, settings.mongoDb, log, name);
    const js = nc.jetstream();
    const outbox = new Outbox(mongo.db, js, log.child({ component: 'outbox' }));
    await ensureIndexes(mongo.db.collection(OUTBOX_COLLECTION.collection), OUTBOX_COLLECTION.indexes);
    const refs = new ReferenceData(mongo.db, REF_KINDS_BY_SERVICE[name]);
    const versions = new ScopeVersions(nc, name, log.child({ component: 'cache' }));
    // As start-up waits for every stream: a write cannot answer before its cache stream holds its marks.
    await whileStarting(log, { stream: cacheStreamOf(name).name }, 'cache stream not ready', () => versions.of(['up']));
    const cache = new VersionedCache(versions);
    const infra: ServiceInfra<Own> = {
      name,
      settings,
      log,
      nc,
      js,
      db: mongo.db,
      ids: new IdAllocator(mongo.db),
      outbox,
      refs,
      clock,
      cache,
    };
    const handlers = await definition.setup(infra);
    // After setup, which registers what runs on each record applied: a record that waited while the service
    // was down must meet those listeners too (a doctor's leave cancels bookings).
    const consumer = await startReferenceConsumer({
      nc,
      service: name,
      refs,
      log: log.child({ component: 'reference' }),
    });
    await caughtUp(consumer, log);

    const subjects = ServiceSubjects[name];
    const breaker = new DatabaseBreaker(() => mongo.db.command({ ping: 1 }), log.child({ component: 'breaker' }));
    const health: Handler = async () => {
      try {
        await mongo.db.command({ ping: 1 });
      } catch {
        return failure(503, REQUEST_MESSAGES.databaseUnavailable(name), 'SERVICE_UNAVAILABLE');
      }
      breaker.close();
      return success(200, { service: name, status: 'ok', instance, outbox_queue: outbox.pendingInProcess() });
    };
    const refStatus: Handler = async () => success(200, { service: name, ...(await consumer.status()) });

    registerServiceGauges(
      {
        outboxQueued: () => outbox.pendingInProcess(),
        outboxStored: () => mongo.db.collection(OUTBOX_COLLECTION.collection).estimatedDocumentCount(),
        referencePending: async () => (await consumer.status()).pending,
        breakerOpen: () => breaker.isOpen,
      },
      log,
    );
    outbox.start();
    const responder = await startResponder({
      nc,
      service: name,
      version: KIT_VERSION,
      metadata: { instance },
      handlers: { ...handlers, [subjects.health]: health, [subjects.refStatus]: refStatus },
      log,
      verifyToken: createTokenVerifier(tokens, { log }),
      access: tokens.access,
      breaker,
      unguarded: [subjects.health, subjects.refStatus],
      replyChunksMax: settings.replyChunksMax,
    });
    // Ready (GET /health on the metrics port) while NATS and the database both answer.
    metrics?.setReadiness(async () => {
      await Promise.all([nc.rtt(), mongo.db.command({ ping: 1 })]);
      return true;
    });
    log.info({ instance, clinic_tz: clock.timeZone, db: settings.mongoDb }, 'service started');

    return async () => {
      await responder.stop();
      breaker.stop();
      await consumer.stop();
      await outbox.stop();
      await nc.drain();
      await mongo.close();
      await metrics?.close();
      await stopTracing();
    };
  });
}

/** How long a starting service waits to apply the reference records that arrived while it was down. */
const CATCH_UP_MAX_MS = 15_000;

/**
 * Answers nothing before the records that waited for it are applied (a doctor's new fee, a leave), or 15 s have
 * passed: a long backlog then goes on being applied while the service answers.
 */
async function caughtUp(consumer: ReferenceConsumer, log: Logger): Promise<void> {
  const deadline = Date.now() + CATCH_UP_MAX_MS;
  for (;;) {
    const { pending } = await consumer.status().catch(() => ({ pending: 0 }));
    if (pending === 0) return;
    if (Date.now() >= deadline) {
      log.warn({ pending }, 'reference records still being applied; answering meanwhile');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
