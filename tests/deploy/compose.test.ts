/**
 * No Docker engine runs where these tests run, so the compose file is checked
 * statically: against the Compose Specification's JSON schema, by dclint's
 * rules, and for what `--scale` and the services need.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Ajv from 'ajv';
import YAML from 'yaml';
import { NATS_USERS, SERVICE_NAMES } from '@clinic/contracts';
import { DEV_NATS_PASSWORDS, passwordVariable, REPO_ROOT } from '@clinic/devstack';

const composeText = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
/** As docker compose reads it: YAML merge keys resolved. */
const compose = YAML.parse(composeText, { merge: true });
const services = compose.services as Record<string, any>;

/** The settings each kind of process reads (every one must be settable in compose). */
const OBSERVABILITY_SETTINGS = ['METRICS_PORT', 'METRICS_HOST', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER'];
const SERVICE_SETTINGS = ['NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'MONGO_URL', 'MONGO_DB', 'CLINIC_TZ', 'LOG_LEVEL', 'REPLY_CHUNKS_MAX', ...OBSERVABILITY_SETTINGS];
const GATEWAY_SETTINGS = [
  'NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'HOST', 'PORT', 'JWT_SECRET', 'JWT_PUBLIC_KEY',
  'REQUEST_TIMEOUT_MS', 'HEALTH_TIMEOUT_MS', 'BODY_LIMIT_BYTES', 'LOG_LEVEL',
  'RATE_LIMIT_MAX', 'RATE_LIMIT_WRITE_MAX', 'RATE_LIMIT_IP_MAX', 'RATE_LIMIT_WINDOW_MS', ...OBSERVABILITY_SETTINGS,
];
const METRICS_PORT = '9464';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Environment variables the code of these directories reads. */
function settingsReadBy(...dirs: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of dirs.flatMap((d) => sourceFiles(join(REPO_ROOT, d)))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/env(?:String|Int|Optional)\('([A-Z_]+)'/g)) names.add(m[1]);
    for (const m of text.matchAll(/process\.env\.([A-Z_]+)/g)) names.add(m[1]);
  }
  names.delete('NODE_ENV'); // set by the images
  return names;
}

it('conforms to the Compose Specification schema', () => {
  const schemaPath = join(dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
  // A draft-07 schema; ajv registers draft-07 under its http URI only, so the $schema line is dropped.
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(schemaPath, 'utf8'));
  const validate = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
  expect(validate(compose) ? [] : validate.errors).toEqual([]);
  // The schema does reject a broken file.
  expect(validate({ services: { billing: { build: { context: 1 }, ports: 'x', restart: 'sometimes' } } })).toBe(false);
});

it('passes dclint without errors', () => {
  const bin = join(dirname(require.resolve('dclint/package.json')), 'bin', 'dclint.cjs');
  const args = existsSync(bin) ? [bin] : [join(REPO_ROOT, 'node_modules', '.bin', 'dclint')];
  expect(() => execFileSync(process.execPath, [...args, '-q', join(REPO_ROOT, 'docker-compose.yml')], { stdio: 'pipe' })).not.toThrow();
});

it('builds each service from its own multi-stage Dockerfile', () => {
  for (const name of [...SERVICE_NAMES, 'gateway']) {
    const dockerfile = join(REPO_ROOT, services[name].build.dockerfile);
    expect(services[name].build.dockerfile).toBe(`services/${name}/Dockerfile`);
    const text = readFileSync(dockerfile, 'utf8');
    expect(text.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(text).toContain(`services/${name}/dist/main.js`);
  }
});

it('keeps the four Dockerfiles identical but for the service name', () => {
  // The block copying every workspace manifest is the same in all four; the rest names the service.
  const dockerfile = (name: string) => readFileSync(join(REPO_ROOT, 'services', name, 'Dockerfile'), 'utf8');
  const manifests = (text: string) => text.split('\n').filter((line) => /^COPY services\/\w+\/package\.json /.test(line));
  const rest = (text: string) => text.split('\n').filter((line) => !/^COPY services\/\w+\/package\.json /.test(line));
  const template = dockerfile('billing');
  for (const name of ['gateway', 'catalogue', 'sessions']) {
    expect(manifests(dockerfile(name))).toEqual(manifests(template));
    expect(rest(dockerfile(name))).toEqual(rest(template.replaceAll('billing', name)));
  }
});

it('lets billing, catalogue and sessions scale: no published ports, no fixed names', () => {
  for (const name of SERVICE_NAMES) {
    expect(services[name].ports).toBeUndefined();
    expect(services[name].container_name).toBeUndefined();
    expect(services[name].hostname).toBeUndefined();
    expect(services[name].depends_on).toEqual({ mongo: { condition: 'service_healthy' }, nats: { condition: 'service_healthy' } });
  }
});

it('runs MongoDB 7 as a single-node replica set and NATS with the generated configuration', () => {
  expect(services.mongo.image).toMatch(/^mongo:7/);
  expect(services.mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
  for (const name of SERVICE_NAMES) expect(services[name].environment.MONGO_URL).toContain('replicaSet=rs0');
  expect(services.nats.volumes).toContain('./deploy/nats/nats.conf:/etc/nats/nats.conf:ro');
  const natsConf = readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8');
  expect(natsConf).toContain('jetstream');
  for (const user of NATS_USERS) {
    expect(natsConf).toContain(`$${passwordVariable(user)}`);
    expect(services.nats.environment[passwordVariable(user)]).toBe(`\${${passwordVariable(user)}:-${DEV_NATS_PASSWORDS[user]}}`);
  }
});

it('connects each process as its own NATS user with the matching password', () => {
  for (const name of [...SERVICE_NAMES, 'gateway'] as const) {
    expect(services[name].environment.NATS_USER).toBe(name);
    expect(services[name].environment.NATS_PASSWORD).toBe(`\${${passwordVariable(name)}:-${DEV_NATS_PASSWORDS[name]}}`);
  }
});

it('sets every setting the code reads', () => {
  for (const name of SERVICE_NAMES) expect(Object.keys(services[name].environment).sort()).toEqual([...SERVICE_SETTINGS].sort());
  expect(Object.keys(services.gateway.environment).sort()).toEqual([...GATEWAY_SETTINGS].sort());
  // Nothing the code reads is missing from these lists.
  const read = settingsReadBy('libs/service-kit/src', 'services');
  expect([...read].filter((name) => !SERVICE_SETTINGS.includes(name) && !GATEWAY_SETTINGS.includes(name))).toEqual([]);
});

it('runs Prometheus under the observability profile, scraping every replica of each process on its metrics port', () => {
  expect(services.prometheus.profiles).toEqual(['observability']);
  expect(services.prometheus.image).toMatch(/^prom\/prometheus:v\d/);
  expect(services.prometheus.volumes).toContain('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
  // Only the observability profile starts it: the default `docker compose up` is unchanged.
  for (const name of [...SERVICE_NAMES, 'gateway', 'mongo', 'nats']) expect(services[name].profiles).toBeUndefined();
  for (const name of [...SERVICE_NAMES, 'gateway']) {
    expect(services[name].environment.METRICS_PORT).toBe(METRICS_PORT);
    expect(services[name].environment.METRICS_HOST).toBe('0.0.0.0');
    expect(services[name].environment.OTEL_SERVICE_NAME).toBe(name);
  }
  const config = YAML.parse(readFileSync(join(REPO_ROOT, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8'));
  const jobs = Object.fromEntries(config.scrape_configs.map((job: any) => [job.job_name, job.dns_sd_configs]));
  expect(Object.keys(jobs).sort()).toEqual([...SERVICE_NAMES, 'gateway'].sort());
  for (const [job, sd] of Object.entries(jobs)) expect(sd).toEqual([{ names: [job], type: 'A', port: Number(METRICS_PORT) }]);
  // Prometheus's own checker (Debian's prometheus package ships it) accepts the file.
  expect(() => execFileSync('promtool', ['check', 'config', join(REPO_ROOT, 'deploy', 'prometheus', 'prometheus.yml')], { stdio: 'pipe' })).not.toThrow();
});
