/**
 * The commands a newcomer runs: `npm start` (the whole stack on its embedded
 * default, demo data, a printed admin token), `npm run token`, `npm run seed`,
 * and a clean stop on SIGTERM.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { connect, headers } from 'nats';
import { NATS_USERS } from '@clinic/contracts';
import {
  canConnect,
  freePort,
  REPO_ROOT,
  natsPasswordFile,
  natsPasswords,
  passwordEnv,
  startLocalInfrastructure,
} from '@clinic/devstack';
import { branch } from './fixtures';
import { eventually } from './harness';
import {
  run,
  cli,
  dataDir,
  start,
  stdout,
  stderr,
  ports,
  url,
  adminToken,
  env,
  restartStack,
  waitForBanner,
  stopStack,
  api,
} from './cli-stack';

it('starts everything and prints the URL and an admin token', async () => {
  expect(url).toBe(`http://127.0.0.1:${ports.gateway}`);
  const health = await fetch(`${url}/health`);
  expect(health.status).toBe(200);
});

it('prints where to scrape each process and writes a Prometheus scrape config for them all', async () => {
  const metricsLine = /Metrics:\s+([^\n]+)/.exec(stdout)![1]!;
  const printed = [...metricsLine.matchAll(/(\S+) (http:\/\/\S+\/metrics)/g)].map((m) => ({ name: m[1]!, url: m[2]! }));
  expect(printed.map((p) => p.name).sort()).toEqual([
    'billing-1',
    'catalogue-1',
    'ferretdb',
    'gateway',
    'nats-n1',
    'sessions-1',
  ]);
  for (const { name, url: metricsUrl } of printed)
    expect(await (await fetch(metricsUrl)).text()).toContain(
      name === 'nats-n1' ? 'gnatsd_varz_jetstream_stats_storage' : 'process_cpu_seconds_total',
    );
  // The scrape config names a targets file Prometheus reads again by itself, and the alert rules.
  const config = JSON.parse(readFileSync(join(dataDir, 'prometheus.yml'), 'utf8'));
  expect(config.rule_files).toEqual([join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.yml')]);
  const [file] = config.scrape_configs[0].file_sd_configs[0].files;
  const groups = JSON.parse(readFileSync(file, 'utf8'));
  const targets = groups.flatMap((g: { targets: string[] }) => g.targets);
  expect(targets.map((target: string) => `http://${target}/metrics`).sort()).toEqual(printed.map((p) => p.url).sort());
  expect(groups.map((g: { labels: { job: string } }) => g.labels.job).sort()).toEqual([
    'billing',
    'catalogue',
    'database',
    'gateway',
    'nats',
    'sessions',
  ]);
  expect(() => execFileSync('promtool', ['check', 'config', join(dataDir, 'prometheus.yml')])).not.toThrow();
  expect(stdout).toContain(`${url}/docs/asyncapi`);
  expect(stdout).toMatch(/Traces:\s+off/);
});

it('loads the demo data on first start, reachable with the printed token', async () => {
  const charges: any = await (await api('/hospital_charges?store_id=1', adminToken)).json();
  expect(charges).toMatchObject({ success: true, count: 5 });
  const preview: any = await (await api('/preview_auto_sessions?store_id=1&month=2030-01', adminToken)).json();
  expect(new Set(preview.preview.map((e: any) => e.doctor_name))).toEqual(
    new Set(['Dr. Anura Gunasekara', 'Dr. Malini Senanayake']),
  );
});

it("makes a secret of its own on the first start: refuses the former development default, accepts npm run token's", async () => {
  expect(stderr).toContain(`JWT_SECRET is not set: tokens are signed and checked with this installation's own secret`);
  const secretFile = join(dataDir, 'jwt-secret');
  expect(statSync(secretFile).mode & 0o777).toBe(0o600);
  expect(readFileSync(secretFile, 'utf8').trim()).toMatch(/^[\w-]{43}$/);
  // The string this repository once shipped as its default (written in parts: it is no longer in the code).
  const formerDefault = ['dev', 'only', 'insecure', 'jwt', 'secret', 'change', 'me'].join('-');
  const forged = createSigner({ key: formerDefault, expiresIn: 600_000 })({ sub: 1, role: 'admin' });
  expect(await (await api('/hospital_charges?store_id=1', forged)).json()).toEqual({
    success: false,
    error: 'Invalid token.',
    code: 'TOKEN_INVALID',
  });
  const { stdout: token } = await run(process.execPath, [cli('token'), '--sub', '1', '--role', 'admin'], {
    env: env(),
  });
  expect((await api('/hospital_charges?store_id=1', token.trim())).status).toBe(200);
  // With no secret in DATA_DIR, npm run token says what to do rather than sign with anything else.
  const empty = mkdtempSync(join(tmpdir(), 'clinic-cli-empty-'));
  try {
    await expect(run(process.execPath, [cli('token')], { env: env({ DATA_DIR: empty }) })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('No key to sign with'),
    });
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

it('makes each NATS user a password of its own on the first start: the former default is refused', async () => {
  const passwords = NATS_USERS.map((user) => readFileSync(join(dataDir, natsPasswordFile(user)), 'utf8').trim());
  expect(new Set(passwords).size).toBe(NATS_USERS.length);
  for (const [i, user] of NATS_USERS.entries()) {
    expect({ user, mode: statSync(join(dataDir, natsPasswordFile(user))).mode & 0o777 }).toEqual({ user, mode: 0o600 });
    expect(passwords[i]).toMatch(/^[\w-]{43}$/);
  }
  const login = (user: string, pass: string) =>
    connect({ servers: `nats://127.0.0.1:${ports.nats}`, user, pass, reconnect: false }).then((nc) => nc.close());
  // The strings this repository once shipped as every user's password (written in parts: no longer in the code).
  for (const user of ['hospital', 'billing', 'ops']) {
    await expect(login(user, ['dev', user, 'password'].join('-'))).rejects.toThrow(/Authorization Violation/);
  }
  await expect(login('hospital', natsPasswords(dataDir).hospital!)).resolves.toBeUndefined();
});

it('signs tokens for the running configuration with npm run token', async () => {
  const { stdout: token } = await run(
    process.execPath,
    [cli('token'), '--sub', '7', '--role', 'cashier', '--expires', '10m'],
    { env: env() },
  );
  expect(token.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect((await api('/lab_bills?store_id=1', token.trim())).status).toBe(200);
  expect((await api('/lab_bills/1', token.trim(), { method: 'DELETE' })).status).toBe(403);
  // Bare: the development admin, user 1 (only an admin reads /health/details; a cashier gets 403).
  const bare = await run(process.execPath, [cli('token')], { env: env() });
  expect(bare.stderr).toContain('An admin token for user 1');
  expect((await api('/health/details', bare.stdout.trim())).status).toBe(200);
  expect((await api('/health/details', token.trim())).status).toBe(403);
  // --stores: a token limited to those branches (store_ids).
  const branch1 = await run(process.execPath, [cli('token'), '--sub', '8', '--role', 'cashier', '--stores', '1'], {
    env: env(),
  });
  const claims = JSON.parse(Buffer.from(branch1.stdout.trim().split('.')[1]!, 'base64url').toString());
  expect(claims.store_ids).toEqual([1]);
  expect((await api('/hospital_charges?store_id=1', branch1.stdout.trim())).status).toBe(200);
  expect(await (await api('/hospital_charges?store_id=2', branch1.stdout.trim())).json()).toEqual({
    success: false,
    error: 'Not allowed for this branch.',
    code: 'BRANCH_NOT_ALLOWED',
  });
  const both = await run(process.execPath, [cli('token'), '--sub', '8', '--role', 'cashier', '--stores', '1,2'], {
    env: env(),
  });
  expect((await api('/hospital_charges?store_id=2', both.stdout.trim())).status).toBe(200);
  await expect(
    run(process.execPath, [cli('token'), '--sub', '8', '--role', 'cashier', '--stores', '1,x'], { env: env() }),
  ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Invalid --stores') });
  await expect(run(process.execPath, [cli('token'), '--role', 'admin'], { env: env() })).rejects.toMatchObject({
    code: 2,
  });
  // Longer than the services accept (JWT_MAX_LIFETIME_S, 24 h by default): refused with the reason.
  await expect(
    run(process.execPath, [cli('token'), '--sub', '7', '--role', 'admin', '--expires', '25h'], { env: env() }),
  ).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringContaining('JWT_MAX_LIFETIME_S'),
  });
});

it('signs tokens another hospital system presents over NATS, as docs/nats.md shows', async () => {
  const { stdout: token } = await run(
    process.execPath,
    [cli('token'), '--sub', 'his-lab', '--role', 'cashier', '--expires', '24h'],
    { env: env() },
  );
  // docs/nats.md's snippet: its own user, its own inbox prefix, the token in an `authorization` header.
  const nc = await connect({
    servers: `nats://127.0.0.1:${ports.nats}`,
    user: 'hospital',
    pass: natsPasswords(dataDir).hospital,
    inboxPrefix: '_INBOX_hospital',
  });
  try {
    const h = headers();
    h.set('authorization', `Bearer ${token.trim()}`);
    const msg = await nc.request('catalogue.charge.list', JSON.stringify({ query: { store_id: '1' } }), {
      headers: h,
      timeout: 5000,
    });
    expect(msg.json()).toMatchObject({ status: 200, body: { success: true, count: 5 } });
  } finally {
    await nc.close();
  }
});

it('publishes a seed file with npm run seed and returns once it is applied', async () => {
  const file = join(dataDir, 'seed.json');
  writeFileSync(
    file,
    JSON.stringify({
      stores: [branch(3, 'Galle')],
      patients: [{ id: 77, name: 'Seeded Patient' }],
    }),
  );
  const natsUrl = `nats://127.0.0.1:${ports.nats}`;
  const { stdout: out } = await run(process.execPath, [cli('seed'), file], { env: env({ NATS_URL: natsUrl }) });
  expect(out).toMatch(/Published 2 record\(s\)/);
  // Applied: billing already knows the new store.
  const charge: any = await (
    await api('/hospital_charges', adminToken, {
      method: 'POST',
      body: JSON.stringify({ store_id: 3, charge_name: 'FBC', charge_type: 'Lab', amount: 5 }),
    })
  ).json();
  const bill = await api('/lab_bills', adminToken, {
    method: 'POST',
    body: JSON.stringify({
      patient_name: 'P',
      patient_contact: 'C',
      bill_date: '2090-01-01',
      payment_method: 'Card',
      store_id: 3,
      patient_id: 77,
      items: [{ charge_id: charge.charge_id, charge_name: 'FBC', unit_price: 5, qty: 1 }],
    }),
  });
  expect(bill.status).toBe(201);

  writeFileSync(file, JSON.stringify({ stores: [{ id: 'x' }] }));
  await expect(run(process.execPath, [cli('seed'), file], { env: env({ NATS_URL: natsUrl }) })).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringContaining('stores[0]'),
  });
});

it('stops every process it started on SIGTERM, keeps its data, and does not load the demo twice', async () => {
  expect(await stopStack(start)).toBe(0);
  for (const port of Object.values(ports)) expect(await canConnect(port)).toBe(false);

  // With the stack down, seeding fails clearly.
  const file = join(dataDir, 'seed.json');
  writeFileSync(file, JSON.stringify({ users: [{ id: 1, name: 'A' }] }));
  await expect(
    run(process.execPath, [cli('seed'), file], { env: env({ NATS_URL: `nats://127.0.0.1:${ports.nats}` }) }),
  ).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining('Is the stack running?'),
  });

  restartStack();
  await waitForBanner();
  const charges: any = await (await api('/hospital_charges?store_id=1', adminToken)).json();
  expect(charges.count).toBe(5);
  expect(stdout).not.toContain('demo data loaded');
  expect(stderr).not.toContain('demo data loaded');
});

describe('with external servers', () => {
  it('starts no server of its own when NATS_URL and MONGO_URL are set, and leaves them running', async () => {
    const infraDir = mkdtempSync(join(tmpdir(), 'clinic-cli-external-'));
    const infra = await startLocalInfrastructure({ dataDir: infraDir, logDir: join(infraDir, 'logs') });
    const ownDir = mkdtempSync(join(tmpdir(), 'clinic-cli-own-'));
    const gatewayPort = await freePort();
    let output = '';
    const child = spawn(process.execPath, [cli('start')], {
      env: {
        ...env(),
        DATA_DIR: ownDir,
        PORT: String(gatewayPort),
        NATS_URL: infra.natsUrl,
        MONGO_URL: infra.mongoUrl,
        // An external server's passwords are given: nothing is made for a server npm start does not run.
        ...passwordEnv(infra.natsPasswords),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    try {
      await eventually(async () => (output.includes('Admin token') ? true : undefined), 60_000, 200);
      expect(output).toContain(`NATS:          ${infra.natsUrl}`);
      // The URL with its password replaced: the password is printed nowhere.
      const printed = new URL(infra.mongoUrl);
      printed.password = '***';
      expect(output).toContain(`Database:      ${printed}`);
      expect(output).not.toContain(decodeURIComponent(new URL(infra.mongoUrl).password));
      expect(existsSync(join(ownDir, 'nats'))).toBe(false);
      expect(existsSync(join(ownDir, 'ferretdb'))).toBe(false);
      expect(await stopStack(child)).toBe(0);
      expect(infra.nats?.running).toBe(true);
      expect(infra.db?.running).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await infra.stop();
      rmSync(infraDir, { recursive: true, force: true });
      rmSync(ownDir, { recursive: true, force: true });
    }
  });
});
