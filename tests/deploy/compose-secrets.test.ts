/**
 * No Docker engine runs where these tests run, so the compose file is checked
 * statically: against the Compose Specification's JSON schema, by dclint's
 * rules, and for what `--scale` and the services need.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { NATS_USERS, SERVICE_NAMES } from '@clinic/contracts';
import { COMPOSE_NATS_NODES, natsServerBinary, passwordVariable, REPO_ROOT, routeEnv } from '@clinic/devstack';
import {
  composeText,
  services,
  TOKEN_RULE_SETTINGS,
  SERVICE_SETTINGS,
  OWN_SETTINGS,
  GATEWAY_SETTINGS,
  required,
  METRICS_PORT,
  settingsReadBy,
  checkedNatsConf,
} from './compose-stack';

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
  for (const name of [...SERVICE_NAMES, 'gateway', 'provisioner'] as const) {
    if (name === 'provisioner') {
      expect(services.provision.environment.NATS_USER).toBe(name);
      expect(services.provision.environment.NATS_PASSWORD).toMatch(required(passwordVariable(name)));
      continue;
    }
    expect(services[name].environment.NATS_USER).toBe(name);
    expect(services[name].environment.NATS_PASSWORD).toMatch(required(passwordVariable(name)));
  }
});

it('has no default password: compose refuses to start without each NATS and MongoDB password', () => {
  // Every reference to a password variable, wherever it is, is a required one.
  const references = [...composeText.matchAll(/\$\{((?:NATS|MONGO)_[A-Z]+_PASSWORD)[^}]*\}/g)];
  // NATS: each user's in the nodes' environment, each service's, the gateway's and the provisioner's own, the
  // routes' (the password, and in each of three routes); MongoDB: root, and each service's twice.
  expect(references.length).toBe(NATS_USERS.length + SERVICE_NAMES.length + 2 + 4 + 1 + 2 * SERVICE_NAMES.length);
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

it('gives the services the token key and rules of the gateway, and provisioning the event readers', () => {
  for (const name of SERVICE_NAMES) {
    for (const setting of ['JWT_SECRET', 'JWT_PUBLIC_KEY', 'JWT_MAX_LIFETIME_S', ...TOKEN_RULE_SETTINGS]) {
      expect(services[name].environment[setting]).toBe(services.gateway.environment[setting]);
    }
  }
  expect(services.provision.environment.OUTSIDE_SYSTEMS_FILE).toBe('/etc/clinic/outside-systems.json');
  expect(services.provision.volumes).toContain('./deploy/outside-systems.json:/etc/clinic/outside-systems.json:ro');
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
