/**
 * What the compose e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { COMPOSE_TLS_MOUNT, makeComposeSecrets, REPO_ROOT } from '@clinic/devstack';

export const composeText = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
/** As docker compose reads it: YAML merge keys resolved. */
export const compose = YAML.parse(composeText, { merge: true });
export const services = compose.services as Record<string, any>;

/** The settings each kind of process reads (every one must be settable in compose). */
export const OBSERVABILITY_SETTINGS = [
  'METRICS_PORT',
  'METRICS_HOST',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_PROPAGATORS',
  'OTEL_SERVICE_NAME',
  'OTEL_METRICS_EXPORTER',
  'OTEL_LOGS_EXPORTER',
];
/** How tokens are checked and what they reach: the same in the gateway and every service. */
export const TOKEN_RULE_SETTINGS = [
  'JWT_JWKS_URL',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWT_JWKS_REFRESH_MIN_S',
  'JWT_ROLE_CLAIM',
  'JWT_STORE_IDS_CLAIM',
  'BRANCH_SCOPE',
  'SESSION_WRITE_ROLES',
];
export const SERVICE_SETTINGS = [
  'NATS_URL',
  'NATS_TLS_CA_FILE',
  'NATS_USER',
  'NATS_PASSWORD',
  'MONGO_URL',
  'MONGO_DB',
  'CLINIC_TZ',
  'LOG_LEVEL',
  'REPLY_CHUNKS_MAX',
  'JWT_SECRET',
  'JWT_PUBLIC_KEY',
  'JWT_MAX_LIFETIME_S',
  ...TOKEN_RULE_SETTINGS,
  ...OBSERVABILITY_SETTINGS,
];
/** Settings only one service reads. */
export const OWN_SETTINGS: Record<string, string[]> = {
  billing: ['CANCEL_REASON_REQUIRED', 'PRICE_OVERRIDE_ROLES', 'REFUND_ROLES'],
};
export const GATEWAY_SETTINGS = [
  'NATS_URL',
  'NATS_TLS_CA_FILE',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'NATS_USER',
  'NATS_PASSWORD',
  'HOST',
  'PORT',
  'JWT_SECRET',
  'JWT_PUBLIC_KEY',
  'JWT_MAX_LIFETIME_S',
  ...TOKEN_RULE_SETTINGS,
  'REQUEST_TIMEOUT_MS',
  'HEALTH_TIMEOUT_MS',
  'BODY_LIMIT_BYTES',
  'CORS_ORIGINS',
  'LOG_LEVEL',
  'RATE_LIMIT_MAX',
  'RATE_LIMIT_WRITE_MAX',
  'RATE_LIMIT_IP_MAX',
  'RATE_LIMIT_WINDOW_MS',
  ...OBSERVABILITY_SETTINGS,
];
/** `${VAR:?message}`: compose refuses to start when VAR is unset or empty. */
export const required = (variable: string) => new RegExp(`^\\$\\{${variable}:\\?[^}]+\\}$`);
/** The same for nats-server, which takes it quoted (a variable's value is read as config). */
export const requiredQuoted = (variable: string) => new RegExp(`^"\\$\\{${variable}:\\?[^}]+\\}"$`);
export const METRICS_PORT = '9464';

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Environment variables the code of these directories reads. */
export function settingsReadBy(...dirs: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of dirs.flatMap((d) => sourceFiles(join(REPO_ROOT, d)))) {
    const text = readFileSync(file, 'utf8');
    // A variable of an environment schema (libs/service-kit/src/process/env.ts), or one read directly.
    for (const m of text.matchAll(/\b([A-Z][A-Z0-9_]*): \{ type: '(?:string|integer)'/g)) names.add(m[1]!);
    for (const m of text.matchAll(/process\.env\.([A-Z_]+)/g)) names.add(m[1]!);
  }
  names.delete('NODE_ENV'); // set by the images
  return names;
}

/**
 * deploy/nats/nats.conf with the files of `npm run certs` where compose mounts them: the real nats-server
 * loads the certificates while it checks the file.
 */
export let checkedNatsConf = '';
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'clinic-compose-tls-'));
  await makeComposeSecrets(join(dir, 'tls'));
  checkedNatsConf = join(dir, 'nats.conf');
  writeFileSync(
    checkedNatsConf,
    readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8').replaceAll(
      COMPOSE_TLS_MOUNT,
      join(dir, 'tls'),
    ),
  );
});
afterAll(() => rmSync(dirname(checkedNatsConf), { recursive: true, force: true }));
