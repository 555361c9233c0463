/**
 * No Docker engine runs where these tests run, so the compose file is checked
 * statically: every password and key a compose secret (a 0600 file of `npm run certs`),
 * each container given the ones it uses only, and what reads them run here as the
 * containers run it (the NATS nodes' entrypoint with the pinned nats-server).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import YAML from 'yaml';
import { SERVICE_NAMES } from '@clinic/contracts';
import {
  COMPOSE_MONGO_NODES,
  COMPOSE_NATS_NODES,
  composeNatsUsers,
  MONGO_EXPORTER,
  composePasswords,
  natsServerBinary,
  REPO_ROOT,
} from '@clinic/devstack';
import { SECRET_FILE_VARIABLES } from '@clinic/service-kit/internal';
import {
  asOnHost,
  compose,
  composeText,
  services,
  TOKEN_RULE_SETTINGS,
  SERVICE_SETTINGS,
  OWN_SETTINGS,
  GATEWAY_SETTINGS,
  METRICS_PORT,
  mountedFiles,
  SECRET_COPIES,
  SECRETS_MOUNT,
  secretsOf,
  settingsReadBy,
  tlsDir,
} from './compose-stack';

const natsPasswords = composePasswords().filter((p) => p.file.startsWith('nats-'));

/**
 * A NATS node as its container runs it: its entrypoint (deploy/nats/entrypoint.sh) with the node's secrets where
 * compose mounts them, then the pinned nats-server checking (-t) nats.conf with the node's own files.
 */
function checkNode(node: string, change: (secrets: string) => void = () => undefined) {
  const files = mountedFiles(node);
  const secrets = mkdtempSync(join(tmpdir(), 'clinic-nats-secrets-'));
  try {
    for (const [inside, here] of Object.entries(files))
      if (dirname(inside) === SECRETS_MOUNT) writeFileSync(join(secrets, basename(inside)), readFileSync(here));
    change(secrets);
    const conf = join(secrets, 'nats.conf');
    writeFileSync(conf, asOnHost(readFileSync(files['/etc/nats/nats.conf']!, 'utf8'), files));
    const [, script] = services[node].entrypoint as string[];
    const [server, ...args] = services[node].command as string[];
    expect(server).toBe('nats-server');
    const run = spawnSync(
      'sh',
      [files[script!]!, natsServerBinary(), '-t', ...args.map((arg) => (arg.endsWith('nats.conf') ? conf : arg))],
      {
        env: { PATH: process.env.PATH, NATS_SECRETS_DIR: secrets, ...services[node].environment },
        encoding: 'utf8',
      },
    );
    return { status: run.status, said: run.stdout + run.stderr };
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
}

describe("the NATS nodes' passwords", () => {
  it.each(COMPOSE_NATS_NODES)(
    '%s: its entrypoint reads them from its secrets, and nats-server takes the configuration',
    (node) => {
      expect(checkNode(node)).toEqual({ status: 0, said: expect.stringContaining('is valid') });
    },
  );

  it('reads a password nats-server would take for a date or a number, or one with quotes, as the text it is', () => {
    // Unquoted, nats-server reads 12-30-25 as a date and refuses it: what the entrypoint's quoting is for.
    const set = (file: string, text: string) => (secrets: string) => writeFileSync(join(secrets, file), text);
    expect(checkNode('nats-1', set('nats-route-password', '12-30-25'))).toMatchObject({ status: 0 });
    expect(checkNode('nats-1', set('nats-ops-password', '1e5"\\x\n'))).toMatchObject({ status: 0 });
  });

  it('stops the node without each of them, and refuses a route password a URL cannot carry', () => {
    for (const { file } of natsPasswords) {
      const missing = checkNode('nats-2', (secrets) => rmSync(join(secrets, file)));
      expect({ file, ...missing }).toEqual({ file, status: 1, said: expect.stringContaining(`no secret ${file}`) });
    }
    const empty = checkNode('nats-2', (secrets) => writeFileSync(join(secrets, 'nats-gateway-password'), ''));
    expect(empty.status).toBe(1);
    const url = checkNode('nats-2', (secrets) => writeFileSync(join(secrets, 'nats-route-password'), 'a@b'));
    expect(url).toEqual({ status: 1, said: expect.stringContaining('the route password goes into URLs') });
  });

  it("gives each node every NATS user's password and the route password, and its own key", () => {
    for (const node of COMPOSE_NATS_NODES) {
      expect(Object.values(secretsOf(node)).sort()).toEqual(
        [...natsPasswords.map((p) => p.file), `${node}.key`].sort(),
      );
      expect(composeNatsUsers().every((user) => secretsOf(node)[`${SECRETS_MOUNT}/nats-${user}-password`])).toBe(true);
    }
  });
});

it('gives each container the secrets it uses and no other', () => {
  const given = Object.fromEntries(Object.keys(services).map((name) => [name, Object.values(secretsOf(name)).sort()]));
  expect(given).toEqual({
    ...Object.fromEntries(
      SERVICE_NAMES.map((name) => [name, ['jwt-secret', `mongo-${name}-password`, `nats-${name}-password`]]),
    ),
    gateway: ['gateway.key', 'jwt-secret', 'nats-gateway-password'],
    provision: ['nats-provisioner-password'],
    'mongo-1': [
      'mongo-1.pem',
      ...SERVICE_NAMES.map((name) => `mongo-${name}-password`),
      'mongo-keyfile',
      'mongo-root-password',
    ].sort(),
    'mongo-2': ['mongo-2.pem', 'mongo-keyfile'],
    'mongo-3': ['mongo-3.pem', 'mongo-keyfile'],
    ...Object.fromEntries(COMPOSE_NATS_NODES.map((node) => [node, given[node]])),
    lb: ['https.pem'],
    'mongodb-exporter': ['mongodb-exporter.pem'],
    ...Object.fromEntries(COMPOSE_NATS_NODES.map((node) => [`nats-exporter-${node.slice(-1)}`, []])),
    prometheus: [],
    collector: [],
    'collector-storage': [],
  });
});

it('puts no password in any environment: compose secrets only, each a private file of npm run certs', () => {
  for (const [name, service] of Object.entries(services)) {
    const variables = Object.keys(service.environment ?? {}).filter((v) => /PASSWORD$|^JWT_SECRET$/.test(v));
    expect({ name, variables }).toEqual({ name, variables: [] });
  }
  expect(composeText).not.toMatch(/\$\{(?:NATS|MONGO)_[A-Z]+_PASSWORD|\$\{JWT_SECRET/);
  for (const name of SERVICE_NAMES) expect(services[name].environment.MONGO_URL).not.toMatch(/\/\/[^/@]*:[^/@]*@/);
  // Every secret is a file of `npm run certs`, its owner's alone; of what it makes, only certificates are public,
  // and the keys of MongoDB's members and of HTTPS are mounted inside their bundles (.pem).
  const secretFiles = Object.values(compose.secrets as Record<string, { file: string }>).map((s) => basename(s.file));
  const bundled = [...COMPOSE_MONGO_NODES, 'https', MONGO_EXPORTER].map((name) => `${name}.key`);
  const made = readdirSync(tlsDir).filter((file) => !file.endsWith('.crt') && !bundled.includes(file));
  expect(secretFiles.sort()).toEqual(made.sort());
  for (const file of secretFiles)
    expect({ file, mode: statSync(join(tlsDir, file)).mode & 0o777 }).toEqual({ file, mode: 0o600 });
});

describe('the containers whose process runs as a user of its own', () => {
  const nodeProcesses = [...SERVICE_NAMES, 'gateway', 'provision'];

  it('start as root only to copy their secrets for `node`, then run the process as `node` with no way back', () => {
    for (const name of nodeProcesses) {
      expect(services[name].user).toBe('root');
      expect(services[name].entrypoint).toEqual([
        'sh',
        '/etc/clinic/copy-secrets.sh',
        'node',
        'setpriv',
        '--reuid=node',
        '--regid=node',
        '--init-groups',
        '--no-new-privs',
        '--',
      ]);
      expect(services[name].tmpfs).toEqual([SECRET_COPIES]);
      expect(mountedFiles(name)['/etc/clinic/copy-secrets.sh']).toBe(join(REPO_ROOT, 'deploy', 'copy-secrets.sh'));
      // Every secret file a variable names is a copy of one of its secrets.
      for (const [variable, value] of Object.entries(services[name].environment as Record<string, string>))
        if (variable.endsWith('_FILE') && value.startsWith(SECRET_COPIES))
          expect({ variable, secret: secretsOf(name)[`${SECRETS_MOUNT}/${basename(value)}`] }).toEqual({
            variable,
            secret: basename(value),
          });
    }
  });

  (process.getuid?.() === 0 ? it : it.skip)(
    'copy-secrets.sh: the process user reads the copies, which no one else may, and not the originals',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'clinic-copy-secrets-'));
      try {
        // Folders anyone may enter: only the files' own modes stand in the way.
        chmodSync(dir, 0o755);
        const from = join(dir, 'from');
        mkdirSync(from, { mode: 0o755 });
        writeFileSync(join(from, 'jwt-secret'), 'the-secret\n', { mode: 0o600 });
        // The gateway's entrypoint as compose runs it, for this machine's `nobody` rather than the image's `node`.
        const entrypoint = (services.gateway.entrypoint as string[]).map((arg) =>
          arg
            .replace('/etc/clinic/copy-secrets.sh', join(REPO_ROOT, 'deploy', 'copy-secrets.sh'))
            .replace(/^node$/, 'nobody')
            .replace('--reuid=node', '--reuid=nobody')
            .replace('--regid=node', `--regid=${execFileSync('id', ['-gn', 'nobody'], { encoding: 'utf8' }).trim()}`),
        );
        const to = join(dir, 'to');
        const said = execFileSync(
          entrypoint[0]!,
          [...entrypoint.slice(1), 'sh', '-c', `id -un; cat ${to}/jwt-secret; cat ${from}/jwt-secret || echo refused`],
          { env: { PATH: process.env.PATH, SECRETS_FROM: from, SECRETS_TO: to }, encoding: 'utf8', stdio: 'pipe' },
        );
        expect(said.split('\n')).toEqual(['nobody', 'the-secret', 'refused', '']);
        const copy = statSync(join(to, 'jwt-secret'));
        expect({ mode: copy.mode & 0o777, dir: statSync(to).mode & 0o777 }).toEqual({ mode: 0o400, dir: 0o700 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

it('connects each process as its own NATS user, with the password of its own secret', () => {
  for (const [name, user] of [
    ...SERVICE_NAMES.map((s) => [s, s]),
    ['gateway', 'gateway'],
    ['provision', 'provisioner'],
  ]) {
    expect(services[name!].environment.NATS_USER).toBe(user);
    expect(services[name!].environment.NATS_PASSWORD_FILE).toBe(`${SECRET_COPIES}/nats-${user}-password`);
  }
});

it('gives the services the token key and rules of the gateway, and provisioning the event readers', () => {
  for (const name of SERVICE_NAMES) {
    for (const setting of ['JWT_SECRET_FILE', 'JWT_PUBLIC_KEY', 'JWT_MAX_LIFETIME_S', ...TOKEN_RULE_SETTINGS]) {
      expect(services[name].environment[setting]).toBe(services.gateway.environment[setting]);
    }
  }
  expect(services.gateway.environment.JWT_SECRET_FILE).toBe(`${SECRET_COPIES}/jwt-secret`);
  expect(services.provision.environment.OUTSIDE_SYSTEMS_FILE).toBe('/etc/clinic/outside-systems.json');
  expect(services.provision.volumes).toContain('./deploy/outside-systems.json:/etc/clinic/outside-systems.json:ro');
});

it('sets every setting the code reads', () => {
  for (const name of SERVICE_NAMES)
    expect(Object.keys(services[name].environment).sort()).toEqual(
      [...SERVICE_SETTINGS, ...(OWN_SETTINGS[name] ?? [])].sort(),
    );
  expect(Object.keys(services.gateway.environment).sort()).toEqual([...GATEWAY_SETTINGS].sort());
  // Nothing the code reads is missing from these lists: a secret is set by its file.
  const read = settingsReadBy('libs/service-kit/src', 'services');
  const known = [...SERVICE_SETTINGS, ...GATEWAY_SETTINGS, ...Object.values(OWN_SETTINGS).flat()];
  const set = (name: string) => known.includes(name) || known.includes(`${name}_FILE`);
  expect([...read].filter((name) => !set(name))).toEqual([]);
  for (const name of SECRET_FILE_VARIABLES) expect(set(name)).toBe(true);
});

it('runs Prometheus under the observability profile, scraping every replica of each process on its metrics port', () => {
  expect(services.prometheus.profiles).toEqual(['observability']);
  expect(services.prometheus.image).toMatch(/^prom\/prometheus:v\d/);
  expect(services.prometheus.volumes).toContain('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
  // Only the observability profile starts it: the default `docker compose up` is unchanged.
  for (const name of [...SERVICE_NAMES, 'gateway', ...COMPOSE_MONGO_NODES, ...COMPOSE_NATS_NODES])
    expect(services[name].profiles).toBeUndefined();
  for (const name of [...SERVICE_NAMES, 'gateway']) {
    expect(services[name].environment.METRICS_PORT).toBe(METRICS_PORT);
    expect(services[name].environment.METRICS_HOST).toBe('0.0.0.0');
    expect(services[name].environment.OTEL_SERVICE_NAME).toBe(name);
  }
  const config = YAML.parse(readFileSync(join(REPO_ROOT, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8'));
  const jobs = Object.fromEntries(config.scrape_configs.map((job: any) => [job.job_name, job]));
  expect(Object.keys(jobs).sort()).toEqual([...SERVICE_NAMES, 'gateway', 'nats', 'database'].sort());
  for (const job of [...SERVICE_NAMES, 'gateway'])
    expect(jobs[job].dns_sd_configs).toEqual([{ names: [job], type: 'A', port: Number(METRICS_PORT) }]);
  // The servers through their exporters, each a service of the same profile.
  const exporters = {
    nats: COMPOSE_NATS_NODES.map((node) => `nats-exporter-${node.slice(-1)}:7777`),
    database: [`${MONGO_EXPORTER}:9216`],
  };
  for (const [job, targets] of Object.entries(exporters)) {
    expect(jobs[job].static_configs).toEqual([{ targets }]);
    for (const target of targets) expect(services[target.split(':')[0]!].profiles).toEqual(['observability']);
  }
  // Prometheus's own checker (Debian's prometheus package ships it) accepts the file.
  expect(() =>
    execFileSync('promtool', ['check', 'config', join(REPO_ROOT, 'deploy', 'prometheus', 'prometheus.yml')], {
      stdio: 'pipe',
    }),
  ).not.toThrow();
});
