/**
 * No Docker engine runs where these tests run, so the compose file is checked
 * statically: against the Compose Specification's JSON schema, by dclint's
 * rules, and for what `--scale` and the services need.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runInNewContext } from 'node:vm';
import Ajv from 'ajv';
import { DockerfileParser, ModifiableInstruction } from 'dockerfile-ast';
import YAML from 'yaml';
import { NATS_USERS, SERVICE_NAMES } from '@clinic/contracts';
import {
  COMPOSE_NATS_NODES,
  COMPOSE_TLS_MOUNT,
  composeCertificates,
  makeComposeSecrets,
  MONGO_KEYFILE,
  NATS_IMAGE_TAG,
  natsServerBinary,
  passwordVariable,
  REPO_ROOT,
  routeEnv,
} from '@clinic/devstack';

const composeText = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
/** As docker compose reads it: YAML merge keys resolved. */
const compose = YAML.parse(composeText, { merge: true });
const services = compose.services as Record<string, any>;

/** The settings each kind of process reads (every one must be settable in compose). */
const OBSERVABILITY_SETTINGS = [
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
const TOKEN_RULE_SETTINGS = [
  'JWT_JWKS_URL',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWT_JWKS_REFRESH_MIN_S',
  'JWT_ROLE_CLAIM',
  'JWT_STORE_IDS_CLAIM',
  'BRANCH_SCOPE',
  'SESSION_WRITE_ROLES',
];
const SERVICE_SETTINGS = [
  'NATS_URL',
  'NATS_TLS_CA_FILE',
  'NATS_USER',
  'NATS_PASSWORD',
  'NATS_STREAM_REPLICAS',
  'MONGO_URL',
  'MONGO_DB',
  'CLINIC_TZ',
  'LOG_LEVEL',
  'REPLY_CHUNKS_MAX',
  'JWT_SECRET',
  'JWT_PUBLIC_KEY',
  'JWT_MAX_LIFETIME_S',
  ...TOKEN_RULE_SETTINGS,
  'EVENT_READERS',
  ...OBSERVABILITY_SETTINGS,
];
/** Settings only one service reads. */
const OWN_SETTINGS: Record<string, string[]> = {
  billing: ['CANCEL_REASON_REQUIRED', 'PRICE_OVERRIDE_ROLES', 'REFUND_ROLES'],
};
const GATEWAY_SETTINGS = [
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
const required = (variable: string) => new RegExp(`^\\$\\{${variable}:\\?[^}]+\\}$`);
/** The same for nats-server, which takes it quoted (a variable's value is read as config). */
const requiredQuoted = (variable: string) => new RegExp(`^"\\$\\{${variable}:\\?[^}]+\\}"$`);
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
    // A variable of an environment schema (libs/service-kit/src/process/env.ts), or one read directly.
    for (const m of text.matchAll(/\b([A-Z][A-Z0-9_]*): \{ type: '(?:string|integer)'/g)) names.add(m[1]!);
    for (const m of text.matchAll(/process\.env\.([A-Z_]+)/g)) names.add(m[1]!);
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
  expect(() =>
    execFileSync(process.execPath, [...args, '-q', join(REPO_ROOT, 'docker-compose.yml')], { stdio: 'pipe' }),
  ).not.toThrow();
});

describe('the one Dockerfile', () => {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const dockerfile = DockerfileParser.parse(text);
  const processes = [...SERVICE_NAMES, 'gateway'];
  /** What the build does for one process: each instruction with its arguments, SERVICE given. */
  const instructionsFor = (name: string) =>
    dockerfile.getInstructions().map((instruction) => ({
      keyword: instruction.getKeyword(),
      flags: instruction instanceof ModifiableInstruction ? instruction.getFlags().map((f) => f.toString()) : [],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's ${SERVICE}, not a template
      args: instruction.getArguments().map((a) => a.getValue().replaceAll('${SERVICE}', name)),
    }));

  it('builds every process: compose names it with the build arg SERVICE', () => {
    expect(
      readdirSync(join(REPO_ROOT, 'services')).filter((dir) =>
        existsSync(join(REPO_ROOT, 'services', dir, 'Dockerfile')),
      ),
    ).toEqual([]);
    for (const name of processes) {
      expect(services[name].build).toEqual({ context: '.', args: { SERVICE: name } });
    }
  });

  it('builds in one stage and runs in a slim one, and declares SERVICE in each stage that reads it', () => {
    expect(dockerfile.getFROMs().map((from) => from.getBuildStage())).toEqual(['build', 'runtime']);
    for (const instruction of dockerfile.getInstructions()) {
      const line = instruction.getRange().start.line;
      for (const variable of instruction.getVariables()) {
        // An ARG is visible only in the stage that declares it: elsewhere ${SERVICE} would be empty.
        expect({
          line: line + 1,
          variable: variable.getName(),
          declared: dockerfile.getAvailableVariables(line).includes(variable.getName()),
        }).toEqual({ line: line + 1, variable: variable.getName(), declared: true });
      }
    }
    // No default: a build that does not name the process fails instead of building one by chance.
    const serviceArgs = dockerfile.getARGs().filter((arg) => arg.getProperty()?.getName() === 'SERVICE');
    expect(serviceArgs).toHaveLength(2);
    for (const arg of serviceArgs) expect(arg.getProperty()?.getValue()).toBeNull();
  });

  it('installs the dependencies before it reads SERVICE, so that the four images share that layer', () => {
    const keywords = dockerfile.getInstructions().map((i) => `${i.getKeyword()} ${i.getArgumentsContent()}`);
    expect(keywords.findIndex((k) => k.startsWith('RUN npm ci'))).toBeLessThan(keywords.indexOf('ARG SERVICE'));
  });

  it.each(processes)('for %s: copies files that exist, compiles its workspace and runs its compiled main', (name) => {
    const instructions = instructionsFor(name);
    for (const copy of instructions.filter((i) => i.keyword === 'COPY' && i.flags.length === 0)) {
      for (const source of copy.args.slice(0, -1))
        expect({ source, exists: existsSync(join(REPO_ROOT, source)) }).toEqual({ source, exists: true });
    }
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'services', name, 'package.json'), 'utf8'));
    expect(
      instructions.some((i) => i.keyword === 'RUN' && i.args.join(' ').includes(`--workspace ${manifest.name}`)),
    ).toBe(true);
    // The runtime stage's last working directory and command: node <dir>/dist/main.js, compiled from src/main.ts.
    const runtime = instructions.slice(
      instructions.findIndex((i) => i.keyword === 'FROM' && i.args.includes('runtime')),
    );
    const workdir = runtime.filter((i) => i.keyword === 'WORKDIR').at(-1)!.args[0];
    const [cmd] = runtime.filter((i) => i.keyword === 'CMD');
    expect(JSON.parse(cmd!.args.join(' '))).toEqual(['node', 'dist/main.js']);
    expect(workdir).toBe(`/app/services/${name}`);
    const tsconfig = JSON.parse(readFileSync(join(REPO_ROOT, 'services', name, 'tsconfig.json'), 'utf8'));
    expect(tsconfig.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    expect(existsSync(join(REPO_ROOT, 'services', name, 'src', 'main.ts'))).toBe(true);
  });
});

it('lets billing, catalogue, sessions and the gateway scale: no published ports, no fixed names', () => {
  for (const name of [...SERVICE_NAMES, 'gateway']) {
    expect(services[name].ports).toBeUndefined();
    expect(services[name].container_name).toBeUndefined();
    expect(services[name].hostname).toBeUndefined();
  }
  for (const name of SERVICE_NAMES) {
    expect(services[name].depends_on).toEqual({
      mongo: { condition: 'service_healthy' },
      ...Object.fromEntries(COMPOSE_NATS_NODES.map((node) => [node, { condition: 'service_healthy' }])),
    });
  }
});

it("publishes only the load balancer's HTTPS port; anything else only on loopback, and only under a profile", () => {
  const published = Object.entries(services).flatMap(([name, service]) =>
    ((service.ports ?? []) as string[]).map((port) => ({ name, port, profiles: service.profiles })),
  );
  // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR:-default} syntax, not a template
  expect(published.filter((p) => !p.profiles)).toEqual([{ name: 'lb', port: '0.0.0.0:${HTTPS_PORT:-443}:8443' }]);
  for (const p of published.filter((p) => p.profiles)) expect(p.port).toMatch(/^127\.0\.0\.1:/);
  for (const name of ['mongo', ...COMPOSE_NATS_NODES]) expect(services[name].ports).toBeUndefined();
});

it('has a healthcheck for every process: the services and gateways on their readiness port', () => {
  for (const [name, service] of Object.entries(services)) {
    expect({ name, healthcheck: Boolean(service.healthcheck?.test) }).toEqual({ name, healthcheck: true });
  }
  for (const name of [...SERVICE_NAMES, 'gateway']) {
    expect(services[name].healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${METRICS_PORT}/health`);
    expect(services[name].environment.METRICS_PORT).toBe(METRICS_PORT);
  }
});

it('runs MongoDB 7 as a single-node replica set and NATS with the generated configuration', () => {
  expect(services.mongo.image).toMatch(/^mongo:7/);
  expect(services.mongo.entrypoint.join(' ')).toContain('docker-entrypoint.sh mongod --replSet rs0');
  for (const name of SERVICE_NAMES) expect(services[name].environment.MONGO_URL).toContain('replicaSet=rs0');
  const natsConf = readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8');
  expect(natsConf).toContain('jetstream');
  for (const node of COMPOSE_NATS_NODES) {
    expect(services[node].volumes).toContain('./deploy/nats/nats.conf:/etc/nats/nats.conf:ro');
    for (const user of NATS_USERS) {
      expect(natsConf).toContain(`password: $${passwordVariable(user)}`);
      expect(services[node].environment[passwordVariable(user)]).toMatch(requiredQuoted(passwordVariable(user)));
    }
  }
});

it('runs a three-node NATS cluster: named nodes routing to each other, each with its own store', () => {
  expect(COMPOSE_NATS_NODES).toHaveLength(3);
  const natsConf = readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8');
  expect(natsConf).toContain('server_name: $NATS_SERVER_NAME');
  expect(natsConf).toContain('sync_interval: always');
  // Each node dials the others with the route password, and requires it of every route (with a certificate).
  expect(natsConf).toContain('routes: $NATS_ROUTES\n  authorization { user: route, password: $NATS_ROUTE_PASSWORD');
  const routes = `[${COMPOSE_NATS_NODES.map((n) => `"nats://route:\${NATS_ROUTE_PASSWORD:?set NATS_ROUTE_PASSWORD (no default outside development)}@${n}:6222"`).join(', ')}]`;
  const stores = new Set<string>();
  for (const node of COMPOSE_NATS_NODES) {
    expect(services[node].image).toBe(`nats:${NATS_IMAGE_TAG}`);
    expect(services[node].environment.NATS_SERVER_NAME).toBe(node);
    expect(services[node].environment.NATS_ROUTES).toBe(routes);
    expect(services[node].environment.NATS_ROUTE_PASSWORD).toMatch(requiredQuoted('NATS_ROUTE_PASSWORD'));
    expect(services[node].healthcheck.test.join(' ')).toContain('/healthz');
    stores.add(services[node].volumes.find((v: string) => v.endsWith(':/data')));
  }
  expect(stores.size).toBe(3);
  // Services and the gateway know every node, and the streams get three replicas.
  const everyNode = COMPOSE_NATS_NODES.map((n) => `tls://${n}:4222`).join(',');
  for (const name of [...SERVICE_NAMES, 'gateway']) expect(services[name].environment.NATS_URL).toBe(everyNode);
  for (const name of SERVICE_NAMES) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR:-default} syntax, not a template
    expect(services[name].environment.NATS_STREAM_REPLICAS).toBe('${NATS_STREAM_REPLICAS:-3}');
  }
});

/**
 * deploy/nats/nats.conf with the files of `npm run certs` where compose mounts them: the real nats-server
 * loads the certificates while it checks the file.
 */
let checkedNatsConf = '';
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

it('writes a configuration the pinned nats-server accepts', () => {
  const env = {
    ...process.env,
    NATS_SERVER_NAME: 'nats-1',
    ...Object.fromEntries(NATS_USERS.map((u) => [passwordVariable(u), 'x'])),
    ...routeEnv(['nats://nats-2:6222'], 'x'),
  };
  const check = spawnSync(natsServerBinary(), ['-t', '-c', checkedNatsConf], {
    env,
    encoding: 'utf8',
  });
  expect({ status: check.status, said: check.stderr }).toMatchObject({
    status: 0,
    said: expect.stringContaining('is valid'),
  });
});

it('connects each process as its own NATS user with the matching password', () => {
  for (const name of [...SERVICE_NAMES, 'gateway'] as const) {
    expect(services[name].environment.NATS_USER).toBe(name);
    expect(services[name].environment.NATS_PASSWORD).toMatch(required(passwordVariable(name)));
  }
});

it('has no default password: compose refuses to start without each NATS and MongoDB password', () => {
  // Every reference to a password variable, wherever it is, is a required one.
  const references = [...composeText.matchAll(/\$\{((?:NATS|MONGO)_[A-Z]+_PASSWORD)[^}]*\}/g)];
  // NATS: each node's six, each service's and the gateway's own, the routes' (the password, and in each of three
  // routes); MongoDB: root, and each service's twice.
  expect(references.length).toBe(NATS_USERS.length + SERVICE_NAMES.length + 1 + 4 + 1 + 2 * SERVICE_NAMES.length);
  for (const [reference, variable] of references) expect(reference).toMatch(required(variable!));
});

it('gives the generated nats.conf no password either: the real nats-server refuses it until each is set', () => {
  const check = (env: Record<string, string>) => {
    try {
      execFileSync(natsServerBinary(), ['-t', '-c', checkedNatsConf], {
        env: { PATH: process.env.PATH, NATS_SERVER_NAME: 'nats-1', ...env },
        stdio: 'pipe',
      });
      return 'valid';
    } catch (err) {
      return String((err as { stderr?: Buffer }).stderr);
    }
  };
  const all = {
    ...Object.fromEntries(NATS_USERS.map((user) => [passwordVariable(user), `real-${user}-password`])),
    ...routeEnv(['nats://nats-2:6222'], 'real-route-password'),
  };
  expect(check({})).toContain('NATS_ROUTES');
  expect(check(routeEnv(['nats://nats-2:6222'], 'real-route-password'))).toContain('NATS_GATEWAY_PASSWORD');
  const { NATS_ROUTE_PASSWORD: _route, ...allButRoute } = all;
  expect(check(allButRoute)).toContain('NATS_ROUTE_PASSWORD');
  const { NATS_OPS_PASSWORD: _ops, ...allButOps } = all;
  expect(check(allButOps)).toContain('NATS_OPS_PASSWORD');
  // With every password set, the server takes the generated users and permissions.
  expect(check(all)).toBe('valid');
});

it('gives the services the token key and rules of the gateway, and the event readers', () => {
  for (const name of SERVICE_NAMES) {
    for (const setting of ['JWT_SECRET', 'JWT_PUBLIC_KEY', 'JWT_MAX_LIFETIME_S', ...TOKEN_RULE_SETTINGS]) {
      expect(services[name].environment[setting]).toBe(services.gateway.environment[setting]);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR:-default} syntax, not a template
    expect(services[name].environment.EVENT_READERS).toBe('${EVENT_READERS:-hospital}');
  }
});

it('sets every setting the code reads', () => {
  for (const name of SERVICE_NAMES)
    expect(Object.keys(services[name].environment).sort()).toEqual(
      [...SERVICE_SETTINGS, ...(OWN_SETTINGS[name] ?? [])].sort(),
    );
  expect(Object.keys(services.gateway.environment).sort()).toEqual([...GATEWAY_SETTINGS].sort());
  // Nothing the code reads is missing from these lists.
  const read = settingsReadBy('libs/service-kit/src', 'services');
  const known = [...SERVICE_SETTINGS, ...GATEWAY_SETTINGS, ...Object.values(OWN_SETTINGS).flat()];
  expect([...read].filter((name) => !known.includes(name))).toEqual([]);
});

it('runs Prometheus under the observability profile, scraping every replica of each process on its metrics port', () => {
  expect(services.prometheus.profiles).toEqual(['observability']);
  expect(services.prometheus.image).toMatch(/^prom\/prometheus:v\d/);
  expect(services.prometheus.volumes).toContain('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
  // Only the observability profile starts it: the default `docker compose up` is unchanged.
  for (const name of [...SERVICE_NAMES, 'gateway', 'mongo', ...COMPOSE_NATS_NODES])
    expect(services[name].profiles).toBeUndefined();
  for (const name of [...SERVICE_NAMES, 'gateway']) {
    expect(services[name].environment.METRICS_PORT).toBe(METRICS_PORT);
    expect(services[name].environment.METRICS_HOST).toBe('0.0.0.0');
    expect(services[name].environment.OTEL_SERVICE_NAME).toBe(name);
  }
  const config = YAML.parse(readFileSync(join(REPO_ROOT, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8'));
  const jobs = Object.fromEntries(config.scrape_configs.map((job: any) => [job.job_name, job.dns_sd_configs]));
  expect(Object.keys(jobs).sort()).toEqual([...SERVICE_NAMES, 'gateway'].sort());
  for (const [job, sd] of Object.entries(jobs))
    expect(sd).toEqual([{ names: [job], type: 'A', port: Number(METRICS_PORT) }]);
  // Prometheus's own checker (Debian's prometheus package ships it) accepts the file.
  expect(() =>
    execFileSync('promtool', ['check', 'config', join(REPO_ROOT, 'deploy', 'prometheus', 'prometheus.yml')], {
      stdio: 'pipe',
    }),
  ).not.toThrow();
});

describe('TLS', () => {
  /** The files of `npm run certs` a service mounts: its name inside the container's TLS folder -> the file mounted. */
  const mounts = (name: string): Record<string, string> =>
    Object.fromEntries(
      ((services[name].volumes ?? []) as string[]).flatMap((volume) => {
        const mount = /^\$\{TLS_DIR:-\.\/deploy\/tls\}\/([^:]+):(.+):ro$/.exec(volume);
        if (!mount) return [];
        expect(mount[2]!.startsWith(`${COMPOSE_TLS_MOUNT}/`)).toBe(true);
        return [[mount[2]!.slice(COMPOSE_TLS_MOUNT.length + 1), mount[1]!]];
      }),
    );
  const made = [
    'ca.crt',
    MONGO_KEYFILE,
    ...composeCertificates().flatMap((c) => [`${c.name}.crt`, `${c.name}.key`, `${c.name}.pem`]),
  ];

  it('runs NATS with TLS on the client port and the routes, with the certificates of npm run certs', () => {
    const natsConf = readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8');
    expect(natsConf).toMatch(/^tls \{\n {2}cert_file: "\/etc\/clinic\/tls\/nats.crt"/m);
    expect(natsConf).toMatch(/^ {2}tls \{[^}]*verify: true/m);
    for (const node of COMPOSE_NATS_NODES) {
      expect(mounts(node)).toEqual({ 'ca.crt': 'ca.crt', 'nats.crt': 'nats.crt', 'nats.key': 'nats.key' });
    }
  });

  it('has every process verify the NATS nodes against the mounted CA, and the gateway serve HTTPS', () => {
    for (const name of [...SERVICE_NAMES, 'gateway']) {
      expect(services[name].environment.NATS_URL.split(',').every((url: string) => url.startsWith('tls://'))).toBe(
        true,
      );
      expect(services[name].environment.NATS_TLS_CA_FILE).toBe(`${COMPOSE_TLS_MOUNT}/ca.crt`);
      expect(mounts(name)['ca.crt']).toBe('ca.crt');
    }
    expect(services.gateway.environment).toMatchObject({
      TLS_CERT_FILE: `${COMPOSE_TLS_MOUNT}/gateway.crt`,
      TLS_KEY_FILE: `${COMPOSE_TLS_MOUNT}/gateway.key`,
    });
    expect(mounts('gateway')).toMatchObject({ 'gateway.crt': 'gateway.crt', 'gateway.key': 'gateway.key' });
    // Every file compose mounts is one npm run certs makes.
    for (const [name, service] of Object.entries(services)) {
      if (!service.volumes) continue;
      for (const file of Object.values(mounts(name)))
        expect({ name, file, made: made.includes(file) }).toMatchObject({ made: true });
    }
  });
});

describe('MongoDB with authentication', () => {
  const databases: Record<string, string> = { billing: 'BILLING', catalogue: 'CATALOGUE', sessions: 'SESSIONS' };

  it('turns access control on (root user from the environment, replica-set key file) and requires TLS', () => {
    const command = services.mongo.entrypoint.join(' ');
    expect(command).toContain('--keyFile /data/mongo-keyfile');
    expect(command).toContain('install -m 0400 -o mongodb -g mongodb /etc/clinic/tls/mongo-keyfile');
    expect(command).toContain('--tlsMode requireTLS');
    expect(services.mongo.environment.MONGO_INITDB_ROOT_PASSWORD).toMatch(required('MONGO_ROOT_PASSWORD'));
    expect(services.mongo.volumes).toContain(
      './deploy/mongo/init-users.js:/docker-entrypoint-initdb.d/init-users.js:ro',
    );
    expect(services.mongo.healthcheck.test.join(' ')).toContain('tls=true&tlsCAFile=/etc/clinic/tls/ca.crt');
  });

  it('connects each service as its own user, to its own database, over TLS verified against the CA', () => {
    for (const name of SERVICE_NAMES) {
      const upper = databases[name]!;
      const db = `\${${upper}_MONGO_DB:-clinic_${name}}`;
      expect(services[name].environment.MONGO_DB).toBe(db);
      const url = services[name].environment.MONGO_URL as string;
      expect(url.startsWith(`mongodb://${name}:\${MONGO_${upper}_PASSWORD:?`)).toBe(true);
      expect(
        url.endsWith(`@mongo:27017/?replicaSet=rs0&authSource=${db}&tls=true&tlsCAFile=/etc/clinic/tls/ca.crt`),
      ).toBe(true);
      // The same database name reaches the script that makes the user.
      expect(services.mongo.environment[`${upper}_MONGO_DB`]).toBe(db);
      expect(services.mongo.environment[`MONGO_${upper}_PASSWORD`]).toMatch(required(`MONGO_${upper}_PASSWORD`));
    }
  });

  it('makes one user per service with readWrite on its own database only (the init script, run as mongosh runs it)', () => {
    const created: Array<{ db: string; user: unknown }> = [];
    const env = {
      BILLING_MONGO_DB: 'clinic_billing',
      CATALOGUE_MONGO_DB: 'clinic_catalogue',
      SESSIONS_MONGO_DB: 'clinic_sessions',
      MONGO_BILLING_PASSWORD: 'b',
      MONGO_CATALOGUE_PASSWORD: 'c',
      MONGO_SESSIONS_PASSWORD: 's',
    };
    const script = readFileSync(join(REPO_ROOT, 'deploy', 'mongo', 'init-users.js'), 'utf8');
    const db = {
      getSiblingDB: (name: string) => ({ createUser: (user: unknown) => created.push({ db: name, user }) }),
    };
    runInNewContext(script, { db, process: { env }, print: () => undefined });
    expect(created).toEqual(
      SERVICE_NAMES.map((name) => ({
        db: `clinic_${name}`,
        user: { user: name, pwd: name[0], roles: [{ role: 'readWrite', db: `clinic_${name}` }] },
      })),
    );
    // A missing password stops it rather than make a user without one.
    const { MONGO_SESSIONS_PASSWORD: _s, ...withoutOne } = env;
    expect(() => runInNewContext(script, { db, process: { env: withoutOne }, print: () => undefined })).toThrow(
      /sessions/,
    );
  });
});

describe('the load balancer', () => {
  const config = readFileSync(join(REPO_ROOT, 'deploy', 'haproxy', 'haproxy.cfg'), 'utf8');

  it('balances every gateway replica over TLS, verified as `gateway`, checked on its readiness port', () => {
    expect(services.lb.image).toMatch(/^haproxy:\d/);
    expect(services.lb.volumes).toContain('./deploy/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(services.lb.depends_on).toEqual({ gateway: { condition: 'service_healthy' } });
    expect(config).toMatch(/^ {2}server-template gateway \d+ gateway:3000$/m);
    const defaults = /^ {2}default-server (.*)$/m.exec(config)![1]!;
    for (const part of [
      'ssl verify required ca-file /etc/clinic/tls/ca.crt',
      'verifyhost gateway',
      `check port ${METRICS_PORT} no-check-ssl`,
      'resolvers docker',
    ])
      expect(defaults).toContain(part);
    expect(config).toContain('bind :8443 ssl crt /etc/clinic/tls/https.pem');
    expect(services.lb.ports).toEqual([expect.stringMatching(/:8443$/)]);
  });

  it('is a configuration HAProxy accepts, with the certificates of npm run certs', () => {
    const dir = dirname(checkedNatsConf);
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, config.replaceAll(COMPOSE_TLS_MOUNT, join(dir, 'tls')));
    const check = spawnSync(existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy', ['-c', '-f', file], {
      encoding: 'utf8',
    });
    expect({ status: check.status, said: check.stdout + check.stderr }).toMatchObject({
      status: 0,
      said: expect.stringContaining('Configuration file is valid'),
    });
  });
});

it('publishes NATS for other hospital systems only in its own file, and only its TLS client port', () => {
  const override = YAML.parse(readFileSync(join(REPO_ROOT, 'deploy', 'compose.hospital-nats.yml'), 'utf8'));
  expect(Object.keys(override.services).sort()).toEqual([...COMPOSE_NATS_NODES].sort());
  for (const node of COMPOSE_NATS_NODES) {
    expect(override.services[node].ports).toEqual([expect.stringMatching(/:4222$/)]);
  }
  // The port it publishes takes TLS clients only.
  expect(readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8')).toMatch(/^tls \{$/m);
});
