// npm start: the whole system on its embedded default (see docs/operations.md).
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  dataDirFromEnv,
  installationCaDir,
  DB_PASSWORD_FILE,
  hasTokenKey,
  JWT_SECRET_FILE,
  discoveringPrometheusConfig,
  prometheusTargets,
  REPO_ROOT,
  signingKeyOf,
  signToken,
  forgetRunningStack,
  Stack,
  writeRunningStack,
} from '@clinic/devstack';
import { ClinicClock, readEnv, tracingConfigured } from '@clinic/service-kit/internal';
import { loadDemoDataOnFirstStart } from './demo';
import { START_ENV } from './start-env';

const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

/**
 * The origins of local front-end development servers (Vite 5173, Next.js and Create React App 3000 or 3001,
 * Angular 4200, Vue CLI and webpack 8080), allowed by CORS when CORS_ORIGINS is not set.
 */
const LOCAL_DEV_ORIGINS = ['localhost', '127.0.0.1']
  .flatMap((host) => [3000, 3001, 4200, 5173, 8080].map((port) => `http://${host}:${port}`))
  .join(',');

/** A database URL as printed: the password stays in its file. */
function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function main(): Promise<void> {
  const env = readEnv(START_ENV);
  const dataDir = dataDirFromEnv();
  if (!hasTokenKey(process.env)) {
    say(
      `JWT_SECRET is not set: tokens are signed and checked with this installation's own secret, ${join(dataDir, JWT_SECRET_FILE)} (made on the first start; npm run token signs with it)`,
    );
  }
  // An unknown zone stops npm start here rather than each service after it started.
  new ClinicClock(env.CLINIC_TZ);
  const natsCluster = env.NATS_CLUSTER;
  if (natsCluster !== 1 && natsCluster !== 3) throw new Error(`NATS_CLUSTER must be 1 or 3, got ${natsCluster}`);
  const nats = natsCluster === 1 ? 'NATS' : `a ${natsCluster}-node NATS cluster`;
  say(`starting ${nats}, the database, billing, catalogue, sessions and the gateway (data in ${dataDir})`);
  const stack = await Stack.start({
    dataDir,
    natsUrl: env.NATS_URL,
    mongoUrl: env.MONGO_URL,
    infra: 'local',
    natsPort: env.NATS_PORT,
    dbPort: env.DB_PORT,
    gatewayPort: env.PORT,
    serviceOutput: 'inherit',
    natsCluster,
    natsTls: env.NATS_TLS === 1,
    caDir: installationCaDir(),
    gatewayTls:
      env.TLS_CERT_FILE && env.TLS_KEY_FILE
        ? { certFile: env.TLS_CERT_FILE, keyFile: env.TLS_KEY_FILE, caFile: env.TLS_CA_FILE }
        : undefined,
    env: { CORS_ORIGINS: process.env.CORS_ORIGINS || LOCAL_DEV_ORIGINS, CLINIC_TZ: env.CLINIC_TZ },
    // Every process that exits unexpectedly is restarted with backoff; a crash loop is given up.
    supervise: { log: (line) => process.stderr.write(`${line}\n`) },
  });

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    say(`${reason}: stopping every process`);
    forgetRunningStack(dataDir);
    stack
      .stop()
      .then(() => {
        say('stopped');
        process.exit(reason === 'start-up failure' ? 1 : 0);
      })
      .catch((err: unknown) => {
        say(`stop failed: ${(err as Error).message}`);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  const signing = signingKeyOf(dataDir);
  // 12 h, or less when the services accept less (JWT_MAX_LIFETIME_S).
  const adminLifetime = Math.min(12 * 3600, env.JWT_MAX_LIFETIME_S);
  const adminToken = signing ? signToken({ sub: 1, role: 'admin', expiresInSeconds: adminLifetime }, signing) : null;
  try {
    if (adminToken) {
      const loaded = await loadDemoDataOnFirstStart(stack, adminToken);
      if (loaded) say(`demo data loaded: ${loaded.records} reference records, ${loaded.charges} charges`);
    }
  } catch (err) {
    say(`demo data could not be loaded: ${(err as Error).message}`);
    stop('start-up failure');
    return;
  }

  // Where the tools beside it (backup, seed, provision) find this stack.
  writeRunningStack(dataDir, {
    nats_url: stack.infra.natsUrl,
    nats_tls_ca_file: stack.infra.natsTlsCaFile ?? null,
    gateway_url: stack.gatewayUrl,
    gateway_ca_file: env.TLS_CA_FILE ?? null,
  });
  // Ports are free ones chosen at each start: the targets file is written again, and Prometheus reads it by itself.
  const scrapeConfig = join(dataDir, 'prometheus.yml');
  const targetsFile = join(dataDir, 'prometheus-targets.json');
  writeFileSync(targetsFile, prometheusTargets(stack.metricsTargets()));
  writeFileSync(
    scrapeConfig,
    discoveringPrometheusConfig(targetsFile, join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.yml')),
  );
  const otlp = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const lines = [
    '',
    `Clinic API:    ${stack.gatewayUrl}`,
    `API docs:      ${stack.gatewayUrl}/docs (HTTP), ${stack.gatewayUrl}/docs/asyncapi (NATS; document: /docs/asyncapi.json)`,
    `Health:        ${stack.gatewayUrl}/health`,
    `CORS:          ${process.env.CORS_ORIGINS ? 'CORS_ORIGINS' : 'local development servers'} (${(process.env.CORS_ORIGINS || LOCAL_DEV_ORIGINS).split(',').length} origins; set CORS_ORIGINS to change)`,
    `Metrics:       ${stack
      .metricsTargets()
      .map((t) => `${t.replica} http://${t.address}/metrics`)
      .join(', ')}`,
    `               scrape them all: prometheus --config.file=${relative(process.cwd(), scrapeConfig) || scrapeConfig}`,
    `Traces:        ${tracingConfigured() ? `OTLP to ${otlp}` : 'off (set OTEL_EXPORTER_OTLP_ENDPOINT to send them to an OTLP receiver)'}`,
    `NATS:          ${stack.infra.natsUrl.split(',').join(' ')}${stack.infra.kind === 'external' ? '' : ` (each user's password in ${join(dataDir, 'nats-<user>-password')})`}`,
    ...(stack.infra.natsTlsCaFile
      ? [`               TLS: clients verify the servers against NATS_TLS_CA_FILE=${stack.infra.natsTlsCaFile}`]
      : []),
    `Database:      ${withoutPassword(stack.infra.mongoUrl)}${stack.infra.db ? ` (password in ${join(dataDir, DB_PASSWORD_FILE)})` : ''}`,
    adminToken
      ? `Admin token (development, ${Math.round(adminLifetime / 360) / 10} h):\n${adminToken}`
      : 'Tokens come from elsewhere (JWT_JWKS_URL, or JWT_PUBLIC_KEY without JWT_PRIVATE_KEY): no token can be printed.',
    '',
    `Try: curl${env.TLS_CA_FILE ? ` --cacert ${env.TLS_CA_FILE}` : ''} -H "Authorization: Bearer $TOKEN" "${stack.gatewayUrl}/hospital_charges?store_id=1"`,
    'Other tokens: npm run -s token -- --sub 2 --role cashier. Stop with Ctrl-C.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  say(`could not start: ${(err as Error).message}`);
  process.exit(1);
});
