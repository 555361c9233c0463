/**
 * `npm start` supervises what it starts: the real start command (tools/cli
 * dist/start.js, on free ports and a data folder of its own) is run, and each
 * of its child processes in turn is killed with SIGKILL from outside, as an
 * operator's `kill -9` would. Each must be restarted (a new process), the
 * restart logged, and /health be 200 again within 10 s. With NATS_CLUSTER=3 the
 * same holds for each of the three NATS nodes, and the API serves throughout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ephemeralPortsStart, freeListeningPort, isPortFree, REPO_ROOT, signToken, waitFor } from '@clinic/devstack';
import { sleep } from '../e2e/harness';
import { writeReports } from './checks';

/** This test's own secret, made at random. */
const SECRET = randomBytes(32).toString('base64url');
const reports: Record<string, unknown>[] = [];
afterAll(() => writeReports('faults-npm-start-latest.json', reports));

interface Started {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Client, cluster and monitoring ports of three nodes (base + 0..2, + 2000, + 4000), all below the kernel's
 * ephemeral range: a port in it can be taken by any outgoing connection before the node binds it.
 */
async function freeNatsBase(): Promise<number> {
  // At least a small range, as freeListeningPort keeps, when the kernel's ephemeral range starts low.
  const span = Math.max(1_000, ephemeralPortsStart() - 4_003 - 20_000);
  for (let i = 0; i < 50; i++) {
    const base = 20_000 + Math.floor(Math.random() * span);
    const ports = [0, 1, 2].flatMap((n) => [base + n, base + 2000 + n, base + 4000 + n]);
    if ((await Promise.all(ports.map((p) => isPortFree(p)))).every(Boolean)) return base;
  }
  throw new Error('no free port range for NATS');
}

async function npmStart(env: Record<string, string>): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-npm-start-'));
  const port = await freeListeningPort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'tools', 'cli', 'dist', 'start.js')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      DB_PORT: String(await freeListeningPort()),
      NATS_PORT: String(await freeNatsBase()),
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // waitFor takes a thrown check for "not yet": an exit ends the wait by answering true.
    await waitFor(
      'npm start to print the API URL',
      async () => out.includes('Clinic API:') || child.exitCode !== null,
      120_000,
      200,
    );
    if (!out.includes('Clinic API:')) throw new Error(`npm start exited with code ${child.exitCode}`);
  } catch (e) {
    await stop();
    // What npm start said is the only clue to why it did not come up.
    throw new Error(`${(e as Error).message}\nstdout:\n${out.slice(-3000)}\nstderr:\n${err.slice(-3000)}`);
  }
  return { child, url: `http://127.0.0.1:${port}`, stderr: () => err, stop };
}

/** The children of a process, with their command lines. */
function childrenOf(pid: number): Array<{ pid: number; cmd: string }> {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === pid
          ? [{ pid: Number(d), cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ') }]
          : [];
      } catch {
        return [];
      }
    });
}

const healthStatus = (url: string) =>
  fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.status,
    () => 0,
  );

/** Kills each matching child with SIGKILL and records how long until it ran again and /health was 200. */
async function killEach(s: Started, processes: Array<[name: string, pattern: string]>, label: string): Promise<void> {
  for (const [name, pattern] of processes) {
    const victim = childrenOf(s.child.pid!).find((c) => c.cmd.includes(pattern));
    expect({ name, found: Boolean(victim) }).toEqual({ name, found: true });
    const killedAt = Date.now();
    process.kill(victim!.pid, 'SIGKILL');
    let restarted = false;
    await waitFor(
      `${name} to be restarted and /health to be 200`,
      async () => {
        restarted = childrenOf(s.child.pid!).some((c) => c.cmd.includes(pattern) && c.pid !== victim!.pid);
        return restarted && (await healthStatus(s.url)) === 200;
      },
      30_000,
      100,
    ).catch(() => undefined);
    const healthyMs = Date.now() - killedAt;
    reports.push({ fault: `${label}: kill -9 ${name}`, restarted, recovery_ms: healthyMs });
    expect({ name, restarted }).toEqual({ name, restarted: true });
    expect(s.stderr()).toContain(`[supervisor] ${name} exited unexpectedly (signal SIGKILL)`);
    expect(healthyMs).toBeLessThan(10_000);
    await sleep(500);
  }
}

it('npm start: each process killed with -9 is restarted, and /health is 200 again within 10 s', async () => {
  const s = await npmStart({});
  try {
    await killEach(
      s,
      [
        ['billing-1', 'services/billing/dist/main.js'],
        ['catalogue-1', 'services/catalogue/dist/main.js'],
        ['sessions-1', 'services/sessions/dist/main.js'],
        ['gateway', 'services/gateway/dist/main.js'],
        ['nats', 'nats-server'],
        ['ferretdb', 'clinic-ferretdb'],
      ],
      'npm start',
    );
    const token = signToken({ sub: 1, role: 'admin', expiresInSeconds: 600 }, { algorithm: 'HS256', key: SECRET });
    const charges = await fetch(`${s.url}/hospital_charges?store_id=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(charges.status).toBe(200);
  } finally {
    await s.stop();
  }
}, 240_000);

it('NATS_CLUSTER=3 npm start serves the API, and each NATS node killed with -9 is restarted', async () => {
  const s = await npmStart({ NATS_CLUSTER: '3' });
  try {
    const token = signToken({ sub: 1, role: 'admin', expiresInSeconds: 600 }, { algorithm: 'HS256', key: SECRET });
    const charges = async () =>
      (await (
        await fetch(`${s.url}/hospital_charges?store_id=1`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { success: boolean };
    expect((await charges()).success).toBe(true);
    await killEach(
      s,
      [
        ['nats-n1', 'n1.conf'],
        ['nats-n2', 'n2.conf'],
        ['nats-n3', 'n3.conf'],
      ],
      'NATS_CLUSTER=3 npm start',
    );
    expect((await charges()).success).toBe(true);
  } finally {
    await s.stop();
  }
}, 240_000);
