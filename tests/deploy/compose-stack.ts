/**
 * What the compose e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { makeComposeSecrets, REPO_ROOT } from '@clinic/devstack';

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
  'NATS_PASSWORD_FILE',
  'MONGO_URL',
  'MONGO_PASSWORD_FILE',
  'MONGO_DB',
  'CLINIC_TZ',
  'LOG_LEVEL',
  'REPLY_CHUNKS_MAX',
  'JWT_SECRET_FILE',
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
  'NATS_PASSWORD_FILE',
  'HOST',
  'PORT',
  'JWT_SECRET_FILE',
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
  'TRUSTED_PROXIES',
  ...OBSERVABILITY_SETTINGS,
];
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

/** Where a container finds its secrets, and where the copies of deploy/copy-secrets.sh are. */
export const SECRETS_MOUNT = '/run/secrets';
export const SECRET_COPIES = '/run/clinic';

/** The folder the files of `npm run certs` are made in for these tests (TLS_DIR), made before them. */
export let tlsDir = '';

// biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR:-default} syntax, not a template
const TLS_DIR_OF_COMPOSE = '${TLS_DIR:-./deploy/tls}/';

/** A host path of the compose file (`./deploy/...`, `${TLS_DIR:-./deploy/tls}/...`) on this machine. */
const hostPath = (path: string) =>
  path.startsWith(TLS_DIR_OF_COMPOSE) ? join(tlsDir, path.slice(TLS_DIR_OF_COMPOSE.length)) : join(REPO_ROOT, path);

/** The secrets a service lists, as `target` (the path inside the container) -> `source` (the secret's name). */
export function secretsOf(name: string): Record<string, string> {
  return Object.fromEntries(
    ((services[name].secrets ?? []) as Array<string | { source: string; target?: string }>).map((secret) => {
      const { source, target } = typeof secret === 'string' ? { source: secret, target: undefined } : secret;
      const path = target ?? source;
      return [path.startsWith('/') ? path : `${SECRETS_MOUNT}/${path}`, source];
    }),
  );
}

/**
 * Every file a service's container sees from the host, by its path inside the container -> the file here: its bind
 * mounts (`host:container:ro`) and its secrets (the top-level `secrets:` entry's file).
 */
export function mountedFiles(name: string): Record<string, string> {
  const binds = ((services[name].volumes ?? []) as string[]).flatMap((volume) => {
    // host:container[:ro], where the host path may hold the `:-` of ${TLS_DIR:-...}.
    const path = volume.replace(/:ro$/, '');
    const at = path.lastIndexOf(':');
    const [from, to] = [path.slice(0, at), path.slice(at + 1)];
    return from.startsWith('.') || from.startsWith('$') ? [[to, hostPath(from)]] : [];
  });
  const secrets = Object.entries(secretsOf(name)).map(([to, source]) => [to, hostPath(compose.secrets[source].file)]);
  return Object.fromEntries([...binds, ...secrets]);
}

/** `text` (a configuration a container reads) with each path inside the container replaced by the file here. */
export function asOnHost(text: string, files: Record<string, string>): string {
  return Object.entries(files).reduce((result, [inside, here]) => result.replaceAll(inside, here), text);
}

beforeAll(async () => {
  tlsDir = join(mkdtempSync(join(tmpdir(), 'clinic-compose-tls-')), 'tls');
  // The installation's CA in a folder of its own, as DATA_DIR/tls is.
  await makeComposeSecrets(tlsDir, { caDir: join(dirname(tlsDir), 'ca') });
});
afterAll(() => rmSync(dirname(tlsDir), { recursive: true, force: true }));
