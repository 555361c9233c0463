/**
 * TLS end to end: NATS with TLS (`NATS_TLS=1`: a local CA and
 * certificates in the data folder) and the gateway on HTTPS (TLS_CERT_FILE,
 * TLS_KEY_FILE). Every service, the gateway and the test's own NATS clients
 * verify the servers against that CA. A bill is created and read back over
 * both; plaintext clients, and TLS clients that do not trust the CA, are refused.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'nats';
import { ensureCertificates, freePort, localNatsTls, REPO_ROOT, startLocalInfrastructure } from '@clinic/devstack';
import { eventually, startTestStack, type TestStack } from './harness';
import { cbcBill, seedMainWithCbc } from './fixtures';

const run = promisify(execFile);
const cli = (name: string) => join(REPO_ROOT, 'tools', 'cli', 'dist', `${name}.js`);

let t: TestStack;
let chargeId: number;

beforeAll(async () => {
  t = await startTestStack({ natsTls: true, gatewayTls: true });
  chargeId = await seedMainWithCbc(t);
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

/** host:port of the (single) NATS server. */
const natsAddress = () => new URL(t.stack.infra.natsUrl).host;

it('runs NATS with TLS and the gateway on HTTPS, the services connected over TLS', () => {
  expect(t.stack.infra.natsUrl).toMatch(/^tls:\/\/127\.0\.0\.1:\d+$/);
  expect(t.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  for (const proc of [t.stack.gateway, ...[...t.stack.services.values()].flat()]) {
    expect(proc.spec.env?.NATS_TLS_CA_FILE).toBe(t.stack.infra.natsTlsCaFile);
  }
});

it('creates a bill and reads it back over HTTPS, the services answering over NATS with TLS', async () => {
  const created = await t.post('/lab_bills', cbcBill(1, chargeId, '2096-03-14'));
  expect(created.status).toBe(201);
  expect(created.body.success).toBe(true);
  const read = await t.get(`/lab_bills/${created.body.bill_id}`);
  expect(read.status).toBe(200);
  expect(read.body.bill).toMatchObject({
    bill_number: created.body.bill_number,
    patient_name: 'Nimal Fernando',
    grand_total: 850,
  });
  // Its event reached JetStream: a reader over TLS finds it.
  const nc = await t.nats('hospital');
  const events = await nc.jetstream().consumers.get('BILLING_EVENTS', 'hospital');
  const ids: number[] = [];
  for await (const m of await events.fetch({ max_messages: 10, expires: 2000 })) {
    ids.push(m.json<{ data: { bill: { id: number } } }>().data.bill.id);
    m.ack();
  }
  expect(ids).toContain(created.body.bill_id);
});

it("reports how long the gateway's certificate and the CA the processes trust still run, for the expiry alert", async () => {
  const metricsOf = async (port: string | undefined) =>
    (await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())
      .split('\n')
      .filter((line) => line.startsWith('clinic_tls_certificate_expiry_seconds{'))
      .map((line) => [line.match(/file="([^"]+)"/)![1], Number(line.split(' ').at(-1)) / 86_400] as const);
  const days = (entries: ReadonlyArray<readonly [string | undefined, number]>) =>
    Object.fromEntries(entries.map(([file, d]) => [file, Math.round(d)]));
  // The local CA lives ten years and a server certificate 397 days (devstack certs.ts), both made a day back.
  expect(days(await metricsOf(t.stack.gateway.spec.env!.METRICS_PORT))).toEqual({
    'ca.crt': expect.any(Number),
    'gateway.crt': expect.any(Number),
  });
  const gateway = days(await metricsOf(t.stack.gateway.spec.env!.METRICS_PORT));
  expect(gateway['gateway.crt']).toBeGreaterThan(360);
  expect(gateway['gateway.crt']).toBeLessThanOrEqual(397);
  expect(gateway['ca.crt']).toBeGreaterThan(3000);
  expect(days(await metricsOf(t.stack.replica('billing').spec.env!.METRICS_PORT))).toEqual({
    'ca.crt': gateway['ca.crt'],
  });
});

it('refuses plain HTTP on the HTTPS port, and HTTPS to a client that does not trust the CA', async () => {
  const port = new URL(t.url).port;
  await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  // Node's fetch trusts only the system's CAs: the local CA's certificate is refused.
  await expect(fetch(`${t.url}/health`)).rejects.toThrow();
});

it('refuses a plaintext NATS client: nats.js without TLS, and a raw CONNECT', async () => {
  const password = t.stack.infra.natsPasswords.hospital;
  // nats.js told not to use TLS (`tls: null`) cannot connect: the server requires it.
  await expect(
    connect({ servers: `nats://${natsAddress()}`, user: 'hospital', pass: password, tls: null, reconnect: false }),
  ).rejects.toMatchObject({ code: 'TLS' });
  // What any plaintext client meets: the server announces TLS, and closes on a plaintext CONNECT without a PONG.
  const said = await new Promise<{ text: string; closedByServer: boolean }>((resolve, reject) => {
    const [host, port] = natsAddress().split(':');
    const socket = tcpConnect(Number(port), host!);
    let text = '';
    let sent = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedByServer: false });
    }, 10_000);
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (!sent && text.startsWith('INFO')) {
        sent = true;
        socket.write(`CONNECT {"user":"hospital","pass":${JSON.stringify(password)},"verbose":false}\r\nPING\r\n`);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedByServer: true });
    });
    socket.on('error', reject);
  });
  expect(said.text).toMatch(/"tls_required":true/);
  expect(said.text).not.toContain('PONG');
  expect(said.closedByServer).toBe(true);
});

it('refuses a TLS NATS client that does not trust the local CA', async () => {
  await expect(
    connect({
      servers: t.stack.infra.natsUrl,
      user: 'hospital',
      pass: t.stack.infra.natsPasswords.hospital,
      tls: {},
      reconnect: false,
    }),
  ).rejects.toThrow(/unable to verify/);
  // Nor does one that leaves TLS to nats.js (it upgrades, since the server requires TLS, and verifies likewise).
  await expect(
    connect({
      servers: `nats://${natsAddress()}`,
      user: 'hospital',
      pass: t.stack.infra.natsPasswords.hospital,
      reconnect: false,
    }),
  ).rejects.toThrow(/unable to verify/);
});

it('runs a three-node cluster with TLS on the client ports and the routes, each node verifying the others', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-tls-cluster-'));
  // startNats waits until every node advertises every other: the routes connected over TLS.
  const infra = await startLocalInfrastructure({
    dataDir,
    logDir: join(dataDir, 'logs'),
    natsCluster: 3,
    natsTls: await localNatsTls(dataDir, 3),
  });
  try {
    expect(infra.natsUrl.split(',')).toHaveLength(3);
    for (const node of infra.natsNodes) {
      const varz = (await (await fetch(`${node.monitorUrl}/varz`)).json()) as {
        tls_required: boolean;
        cluster: { tls_required: boolean; tls_verify: boolean };
      };
      expect(varz).toMatchObject({ tls_required: true, cluster: { tls_required: true, tls_verify: true } });
    }
  } finally {
    await infra.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

it('NATS_TLS=1 npm start: loads the demo over TLS, and npm run seed verifies the server against the CA', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-tls-start-'));
  const natsPort = await freePort();
  const { JWT_SECRET: _s, NATS_URL: _n, MONGO_URL: _m, NATS_TLS_CA_FILE: _c, ...inherited } = process.env;
  const env = {
    ...inherited,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    NATS_PORT: String(natsPort),
    DB_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    NATS_TLS: '1',
  };
  let output = '';
  const child = spawn(process.execPath, [cli('start')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  try {
    await eventually(async () => (output.includes('Admin token') ? true : undefined), 90_000, 200).catch((err) => {
      throw new Error(`${(err as Error).message}\n${output}`);
    });
    const caFile = join(dataDir, 'tls', 'ca.crt');
    expect(output).toContain(`NATS:          tls://127.0.0.1:${natsPort}`);
    expect(output).toContain(`NATS_TLS_CA_FILE=${caFile}`);
    expect(output).toContain('demo data loaded');
    const seed = join(dataDir, 'seed.json');
    writeFileSync(seed, JSON.stringify({ patients: [{ id: 901, name: 'Over TLS' }] }));
    // The tool finds the stack's URL and CA in what npm start wrote (DATA_DIR/stack.json): no variables.
    const seeded = await run(process.execPath, [cli('seed'), seed], { env });
    expect(seeded.stdout).toMatch(/Published 1 record\(s\)/);
    // Against another installation's CA it cannot verify the server, and says so.
    const otherCa = (await ensureCertificates(join(dataDir, 'other-ca'), [])).caFile;
    await expect(
      run(process.execPath, [cli('seed'), seed], { env: { ...env, NATS_TLS_CA_FILE: otherCa } }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/unable to verify|self.signed|certificate/i) });
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);
