/**
 * No Docker engine runs where these tests run, so the compose file is checked
 * statically: the certificates and keys each container mounts, MongoDB's users,
 * and the load balancer's configuration as HAProxy reads it.
 */
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { runInNewContext } from 'node:vm';
import YAML from 'yaml';
import { SERVICE_NAMES } from '@clinic/contracts';
import { COMPOSE_MONGO_NODES, COMPOSE_NATS_NODES, COMPOSE_TLS_MOUNT, MONGO_KEYFILE, REPO_ROOT } from '@clinic/devstack';
import {
  asOnHost,
  METRICS_PORT,
  mountedFiles,
  SECRET_COPIES,
  SECRETS_MOUNT,
  secretsOf,
  compose,
  services,
  tlsDir,
} from './compose-stack';

describe('TLS', () => {
  /** Every file a service mounts from `npm run certs`: its path inside the container -> the file's name. */
  const certsOf = (name: string): Record<string, string> =>
    Object.fromEntries(
      Object.entries(mountedFiles(name))
        .filter(([, here]) => dirname(here) === tlsDir)
        .map(([inside, here]) => [inside, basename(here)]),
    );

  it('runs each NATS node with its own certificate, naming it, on the client port and the routes', () => {
    const natsConf = readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8');
    expect(natsConf).toMatch(/^tls \{\n {2}cert_file: "\/etc\/clinic\/tls\/nats.crt"/m);
    expect(natsConf).toMatch(/^ {2}tls \{[^}]*verify: true/m);
    for (const node of COMPOSE_NATS_NODES) {
      expect(certsOf(node)).toEqual({
        [`${COMPOSE_TLS_MOUNT}/ca.crt`]: 'ca.crt',
        [`${COMPOSE_TLS_MOUNT}/nats.crt`]: `${node}.crt`,
        [`${COMPOSE_TLS_MOUNT}/nats.key`]: `${node}.key`,
        ...natsPasswordMounts(node),
      });
      const names = new X509Certificate(readFileSync(join(tlsDir, `${node}.crt`))).subjectAltName!.split(', ');
      expect(names).toContain(`DNS:${node}`);
      expect(names.filter((name) => /^DNS:nats-\d$/.test(name))).toEqual([`DNS:${node}`]);
    }
  });

  it('has every process verify the NATS nodes against the mounted CA, and the gateway serve HTTPS', () => {
    for (const name of [...SERVICE_NAMES, 'gateway']) {
      expect(services[name].environment.NATS_URL.split(',').every((url: string) => url.startsWith('tls://'))).toBe(
        true,
      );
      expect(services[name].environment.NATS_TLS_CA_FILE).toBe(`${COMPOSE_TLS_MOUNT}/ca.crt`);
      expect(certsOf(name)[`${COMPOSE_TLS_MOUNT}/ca.crt`]).toBe('ca.crt');
    }
    // Its key is a secret, read from the copy made for its user.
    expect(services.gateway.environment).toMatchObject({
      TLS_CERT_FILE: `${COMPOSE_TLS_MOUNT}/gateway.crt`,
      TLS_KEY_FILE: `${SECRET_COPIES}/gateway.key`,
    });
    expect(certsOf('gateway')).toMatchObject({
      [`${COMPOSE_TLS_MOUNT}/gateway.crt`]: 'gateway.crt',
      [`${SECRETS_MOUNT}/gateway.key`]: 'gateway.key',
    });
    // Every file compose mounts from TLS_DIR is one npm run certs made.
    for (const name of Object.keys(services))
      for (const [inside, here] of Object.entries(mountedFiles(name)))
        expect({ name, inside, made: existsSync(here) }).toEqual({ name, inside, made: true });
  });
});

/** The NATS passwords a node mounts, as certsOf shows them. */
function natsPasswordMounts(node: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secretsOf(node))
      .filter(([, source]) => source.endsWith('-password'))
      .map(([inside, source]) => [inside, source]),
  );
}

describe('MongoDB with authentication', () => {
  const databases: Record<string, string> = { billing: 'BILLING', catalogue: 'CATALOGUE', sessions: 'SESSIONS' };

  it('turns access control on (the replica-set key file, the root user on mongo-1) and requires TLS of clients', () => {
    for (const node of COMPOSE_MONGO_NODES) {
      const command = services[node].command.join(' ');
      expect(command).toContain(`--keyFile ${SECRET_COPIES}/${MONGO_KEYFILE}`);
      expect(command).toContain('--tlsMode requireTLS');
      expect(command).toContain(
        `--tlsCertificateKeyFile ${SECRET_COPIES}/mongo.pem --tlsCAFile ${COMPOSE_TLS_MOUNT}/ca.crt`,
      );
      // Services log in with passwords; a member presents its certificate to the others, which verify it.
      expect(command).toContain('--tlsAllowConnectionsWithoutCertificates');
      // Its secrets copied for mongod's user (the key file must be its alone), then the image's entrypoint.
      expect(services[node].entrypoint).toEqual([
        'sh',
        '/etc/clinic/copy-secrets.sh',
        'mongodb',
        'docker-entrypoint.sh',
      ]);
      expect(secretsOf(node)).toMatchObject({
        [`${SECRETS_MOUNT}/${MONGO_KEYFILE}`]: MONGO_KEYFILE,
        [`${SECRETS_MOUNT}/mongo.pem`]: `${node}.pem`,
      });
      expect(services[node].healthcheck.test.join(' ')).toContain('tls=true&tlsCAFile=/etc/clinic/tls/ca.crt');
    }
    const first = services['mongo-1'];
    expect(first.environment.MONGO_INITDB_ROOT_PASSWORD_FILE).toBe(`${SECRET_COPIES}/mongo-root-password`);
    expect(first.healthcheck.test.join(' ')).toContain(`fs.readFileSync('${SECRET_COPIES}/mongo-root-password'`);
    expect(first.volumes).toContain('./deploy/mongo/init-users.js:/docker-entrypoint-initdb.d/init-users.js:ro');
    // The other members make no users: they copy mongo-1's when they join.
    for (const node of COMPOSE_MONGO_NODES.slice(1)) expect(services[node].environment).toBeUndefined();
  });

  it('connects each service as its own user, to its own database, over TLS verified against the CA', () => {
    for (const name of SERVICE_NAMES) {
      const upper = databases[name]!;
      const db = `\${${upper}_MONGO_DB:-clinic_${name}}`;
      expect(services[name].environment.MONGO_DB).toBe(db);
      const url = services[name].environment.MONGO_URL as string;
      expect(url.startsWith(`mongodb://${name}@mongo-1:27017,`)).toBe(true);
      expect(url.endsWith(`/?replicaSet=rs0&authSource=${db}&tls=true&tlsCAFile=/etc/clinic/tls/ca.crt`)).toBe(true);
      expect(services[name].environment.MONGO_PASSWORD_FILE).toBe(`${SECRET_COPIES}/mongo-${name}-password`);
      // The same database name and password reach the script that makes the user.
      expect(services['mongo-1'].environment[`${upper}_MONGO_DB`]).toBe(db);
      expect(services['mongo-1'].environment[`MONGO_${upper}_PASSWORD_FILE`]).toBe(
        `${SECRET_COPIES}/mongo-${name}-password`,
      );
    }
  });

  it('makes one user per service with readWrite on its own database only (the init script, run as mongosh runs it)', () => {
    const created: Array<{ db: string; user: unknown }> = [];
    // The passwords as mongo-1 has them: the files of its secrets.
    const files = mountedFiles('mongo-1');
    const env = Object.fromEntries(
      Object.entries(services['mongo-1'].environment as Record<string, string>).map(([name, value]) => [
        name,
        value.startsWith(SECRET_COPIES)
          ? files[value.replace(SECRET_COPIES, SECRETS_MOUNT)]!
          : value.replace(/^\$\{[A-Z_]+:-(.*)\}$/, '$1'),
      ]),
    );
    const script = readFileSync(join(REPO_ROOT, 'deploy', 'mongo', 'init-users.js'), 'utf8');
    const db = {
      getSiblingDB: (name: string) => ({ createUser: (user: unknown) => created.push({ db: name, user }) }),
    };
    runInNewContext(script, { db, fs, process: { env }, print: () => undefined });
    expect(created).toEqual([
      ...SERVICE_NAMES.map((name) => ({
        db: `clinic_${name}`,
        user: {
          user: name,
          pwd: readFileSync(join(tlsDir, `mongo-${name}-password`), 'utf8'),
          roles: [{ role: 'readWrite', db: `clinic_${name}` }],
        },
      })),
      // The metrics exporter: its certificate, no password, and only the server's state to read.
      {
        db: '$external',
        user: {
          user: 'CN=mongodb-exporter',
          roles: [
            { role: 'clusterMonitor', db: 'admin' },
            { role: 'read', db: 'local' },
          ],
        },
      },
    ]);
    // A missing password stops it rather than make a user without one.
    const { MONGO_SESSIONS_PASSWORD_FILE: _s, ...withoutOne } = env;
    expect(() => runInNewContext(script, { db, fs, process: { env: withoutOne }, print: () => undefined })).toThrow(
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
    expect(services.lb.ports).toEqual([expect.stringMatching(/:8443$/), expect.stringMatching(/:8080$/)]);
    // Its key a secret, read as root; then HAProxy runs as the image's user.
    expect(secretsOf('lb')).toEqual({ '/etc/clinic/tls/https.pem': 'https.pem' });
    expect(services.lb.user).toBe('root');
    expect(config).toMatch(/^ {2}user haproxy\n {2}group haproxy$/m);
  });

  it('redirects port 80 to HTTPS, sends HSTS, and passes on the address the client connected from', () => {
    const frontend = (name: string) => new RegExp(`^frontend ${name}\\n((?: {2}.*\\n)+)`, 'm').exec(config)![1]!;
    expect(frontend('http')).toMatch(
      /^ {2}bind :8080\n {2}http-request redirect code 308 location https:\/\/[^\n]+\n$/,
    );
    const https = frontend('https');
    expect(https).toContain('http-after-response set-header Strict-Transport-Security "max-age=31536000"');
    // A client's own header is dropped before `option forwardfor` adds the address it connected from.
    expect(https).toContain('http-request del-header X-Forwarded-For');
    expect(/^defaults\n(?: {2}.*\n)*? {2}option forwardfor\n/m.test(config)).toBe(true);
  });

  it('is alone with the gateways on the edge network, the one they trust for X-Forwarded-For', () => {
    const edge = compose.networks.edge.ipam.config[0].subnet;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR:-default} syntax, not a template
    expect(edge).toBe('${EDGE_SUBNET:-172.30.255.0/27}');
    expect(services.gateway.environment.TRUSTED_PROXIES).toBe(edge);
    const onEdge = Object.entries(services)
      .filter(([, service]) => (service.networks ?? []).includes('edge'))
      .map(([name]) => name);
    expect(onEdge.sort()).toEqual(['gateway', 'lb']);
    expect(services.lb.networks).toEqual(['edge']);
    expect(services.gateway.networks).toEqual(['default', 'edge']);
  });

  it('is a configuration HAProxy accepts, with the files compose mounts', () => {
    const file = join(tlsDir, 'haproxy.cfg');
    writeFileSync(file, asOnHost(config, mountedFiles('lb')));
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
