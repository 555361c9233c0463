/**
 * No Docker engine runs where these tests run, so the compose file is checked
 * statically: against the Compose Specification's JSON schema, by dclint's
 * rules, and for what `--scale` and the services need.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Ajv from 'ajv';
import { DockerfileParser, ModifiableInstruction } from 'dockerfile-ast';
import { SERVICE_NAMES } from '@clinic/contracts';
import {
  COMPOSE_MONGO_NODES,
  COMPOSE_NATS_NODES,
  composeNatsUsers,
  NATS_IMAGE_TAG,
  passwordVariable,
  REPO_ROOT,
} from '@clinic/devstack';
import { compose, composeText, services, METRICS_PORT } from './compose-stack';

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
      ...Object.fromEntries(COMPOSE_MONGO_NODES.map((node) => [node, { condition: 'service_healthy' }])),
      ...Object.fromEntries(COMPOSE_NATS_NODES.map((node) => [node, { condition: 'service_healthy' }])),
      provision: { condition: 'service_completed_successfully' },
    });
  }
  expect(services.gateway.depends_on.provision).toEqual({ condition: 'service_completed_successfully' });
});

it('provisions the streams and consumers once, before the services, as its own NATS user', () => {
  expect(services.provision.restart).toBe('no');
  expect(services.provision.command).toEqual(['node', '/app/libs/service-kit/dist/provision-main.js']);
  expect(existsSync(join(REPO_ROOT, 'libs', 'service-kit', 'src', 'provision-main.ts'))).toBe(true);
  expect(services.provision.environment.NATS_USER).toBe('provisioner');
});

it("publishes only the load balancer's HTTPS port and its HTTP redirect; anything else only on loopback, and only under a profile", () => {
  const published = Object.entries(services).flatMap(([name, service]) =>
    ((service.ports ?? []) as string[]).map((port) => ({ name, port, profiles: service.profiles })),
  );
  expect(published.filter((p) => !p.profiles)).toEqual([
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR:-default} syntax, not a template
    { name: 'lb', port: '0.0.0.0:${HTTPS_PORT:-443}:8443' },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR:-default} syntax, not a template
    { name: 'lb', port: '0.0.0.0:${HTTP_PORT:-80}:8080' },
  ]);
  for (const p of published.filter((p) => p.profiles)) expect(p.port).toMatch(/^127\.0\.0\.1:/);
  for (const name of [...COMPOSE_MONGO_NODES, ...COMPOSE_NATS_NODES]) expect(services[name].ports).toBeUndefined();
});

it('has a healthcheck for every process: the services and gateways on their readiness port', () => {
  // One-shot containers run once and exit: compose waits for their exit instead. The collector's and the exporters'
  // images hold their program alone, with nothing to run a check with: Prometheus's `up` checks the exporters.
  const bare = ['collector', 'mongodb-exporter', 'nats-exporter-1', 'nats-exporter-2', 'nats-exporter-3'];
  const unchecked = Object.entries(services)
    .filter(([name, service]) => service.restart === 'no' || bare.includes(name))
    .map(([name]) => name);
  expect(unchecked.sort()).toEqual([...bare, 'collector-storage', 'provision'].sort());
  for (const [name, service] of Object.entries(services).filter(([name]) => !unchecked.includes(name))) {
    expect({ name, healthcheck: Boolean(service.healthcheck?.test) }).toEqual({ name, healthcheck: true });
  }
  for (const name of [...SERVICE_NAMES, 'gateway']) {
    expect(services[name].healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${METRICS_PORT}/health`);
    expect(services[name].environment.METRICS_PORT).toBe(METRICS_PORT);
  }
});

it('runs MongoDB 7 as a replica set of three members, which every service lists, and NATS with the generated configuration', () => {
  expect(COMPOSE_MONGO_NODES).toHaveLength(3);
  const stores = new Set<string>();
  for (const node of COMPOSE_MONGO_NODES) {
    expect(services[node].image).toMatch(/^mongo:7/);
    expect(services[node].command.slice(0, 3)).toEqual(['mongod', '--replSet', 'rs0']);
    stores.add(services[node].volumes.find((v: string) => v.endsWith(':/data/db')));
  }
  expect(stores.size).toBe(3);
  // mongo-1 initiates the set with the three members, once the other two answer.
  const initiate = services['mongo-1'].healthcheck.test.join(' ');
  expect(initiate).toContain("rs.initiate({ _id: 'rs0', members: [");
  const members = [...initiate.matchAll(/host: '([^']+)'/g)].map((m) => m[1]);
  expect(members).toEqual(COMPOSE_MONGO_NODES.map((node) => `${node}:27017`));
  expect(services['mongo-1'].depends_on).toEqual({
    'mongo-2': { condition: 'service_healthy' },
    'mongo-3': { condition: 'service_healthy' },
  });
  const hosts = COMPOSE_MONGO_NODES.map((node) => `${node}:27017`).join(',');
  for (const name of SERVICE_NAMES) {
    expect(services[name].environment.MONGO_URL).toContain(`@${hosts}/?replicaSet=rs0&`);
  }
  const natsConf = readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8');
  expect(natsConf).toContain('jetstream');
  for (const node of COMPOSE_NATS_NODES) {
    expect(services[node].volumes).toContain('./deploy/nats/nats.conf:/etc/nats/nats.conf:ro');
    expect(services[node].volumes).toContain('./deploy/nats/entrypoint.sh:/etc/nats/entrypoint.sh:ro');
    expect(services[node].entrypoint).toEqual(['sh', '/etc/nats/entrypoint.sh']);
    for (const user of composeNatsUsers()) expect(natsConf).toContain(`password: $${passwordVariable(user)}`);
  }
});

it('runs a three-node NATS cluster: named nodes routing to each other, each with its own store', () => {
  expect(COMPOSE_NATS_NODES).toHaveLength(3);
  const natsConf = readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8');
  expect(natsConf).toContain('server_name: $NATS_SERVER_NAME');
  expect(natsConf).toContain('sync_interval: always');
  // Each node dials the others with the route password, and requires it of every route (with a certificate).
  expect(natsConf).toContain('routes: $NATS_ROUTES\n  authorization { user: route, password: $NATS_ROUTE_PASSWORD');
  const entrypoint = readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'entrypoint.sh'), 'utf8');
  const routes = `NATS_ROUTES="[${COMPOSE_NATS_NODES.map((n) => `\\"nats://route:$route@${n}:6222\\"`).join(', ')}]"`;
  expect(entrypoint).toContain(routes);
  const stores = new Set<string>();
  for (const node of COMPOSE_NATS_NODES) {
    expect(services[node].image).toBe(`nats:${NATS_IMAGE_TAG}`);
    expect(services[node].environment).toEqual({ NATS_SERVER_NAME: node });
    expect(services[node].healthcheck.test.join(' ')).toContain('/healthz');
    stores.add(services[node].volumes.find((v: string) => v.endsWith(':/data')));
  }
  expect(stores.size).toBe(3);
  // Services and the gateway know every node, and the streams get three replicas.
  const everyNode = COMPOSE_NATS_NODES.map((n) => `tls://${n}:4222`).join(',');
  for (const name of [...SERVICE_NAMES, 'gateway']) expect(services[name].environment.NATS_URL).toBe(everyNode);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR:-default} syntax, not a template
  expect(services.provision.environment.NATS_STREAM_REPLICAS).toBe('${NATS_STREAM_REPLICAS:-3}');
});

it('pins every image to an exact release: NATS the one bootstrap builds, MongoDB 7, HAProxy 3.0, and the Node.js of the Dockerfile', () => {
  const images = Object.fromEntries(
    Object.entries(services)
      .filter(([, service]) => service.image)
      .map(([name, service]) => [name, service.image as string]),
  );
  for (const [name, image] of Object.entries(images))
    expect({ name, image }).toEqual({ name, image: expect.stringMatching(/^[a-z/_-]+:v?\d+\.\d+\.\d+(-[a-z]+)?$/) });
  const bootstrap = readFileSync(join(REPO_ROOT, 'scripts', 'bootstrap.sh'), 'utf8');
  const natsVersion = /^NATS_VERSION=v(\S+)$/m.exec(bootstrap)![1];
  for (const node of COMPOSE_NATS_NODES) expect(images[node]).toBe(`nats:${natsVersion}-alpine`);
  for (const node of COMPOSE_MONGO_NODES) expect(images[node]).toMatch(/^mongo:7\.0\.\d+$/);
  expect(images.lb).toMatch(/^haproxy:3\.0\.\d+-alpine$/);
  const nodeImage = DockerfileParser.parse(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'))
    .getARGs()
    .find((arg) => arg.getProperty()?.getName() === 'NODE_IMAGE');
  expect(nodeImage?.getProperty()?.getValue()).toMatch(/^node:20\.\d+\.\d+-bookworm-slim$/);
});

it("rotates every container's log and limits its CPU and memory, each setting written once (YAML anchors)", () => {
  for (const [name, service] of Object.entries(services)) {
    expect({ name, logging: service.logging }).toEqual({
      name,
      logging: { driver: 'json-file', options: { 'max-size': '10m', 'max-file': '5' } },
    });
    const limits = service.deploy?.resources?.limits ?? {};
    expect({ name, cpus: Number(limits.cpus) > 0, memory: /^\d+[MG]$/.test(limits.memory) }).toEqual({
      name,
      cpus: true,
      memory: true,
    });
  }
  // One place to change each: the anchors.
  expect(composeText.match(/max-size/g)).toHaveLength(1);
  expect(composeText.match(/^\s+deploy: \*/gm)!.length).toBeGreaterThanOrEqual(4);
});
