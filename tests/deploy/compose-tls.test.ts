/**
 * No Docker engine runs where these tests run, so the compose file is checked
 * statically: against the Compose Specification's JSON schema, by dclint's
 * rules, and for what `--scale` and the services need.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runInNewContext } from 'node:vm';
import YAML from 'yaml';
import { SERVICE_NAMES } from '@clinic/contracts';
import { COMPOSE_NATS_NODES, COMPOSE_TLS_MOUNT, composeCertificates, MONGO_KEYFILE, REPO_ROOT } from '@clinic/devstack';
import { services, required, METRICS_PORT, checkedNatsConf } from './compose-stack';

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
