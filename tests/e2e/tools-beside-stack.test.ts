/**
 * Tools that find the stack they run beside: npm start on ports of
 * its own with NATS over TLS, then seed, backup and restore given nothing but
 * DATA_DIR; a failed backup keeps nothing; the gateway's environment holds no
 * database URL.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, REPO_ROOT } from '@clinic/devstack';
import { eventually } from './harness';

const run = promisify(execFile);
const cli = (name: string) => join(REPO_ROOT, 'tools', 'cli', 'dist', `${name}.js`);
let dataDir: string;
let start: ChildProcess;
let output = '';

/** Only what a shell beside npm start would hold: no NATS_URL, no CA, no password. */
function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const kept = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(NATS_|MONGO_|JWT_|OTEL_)/.test(key)),
  );
  return { ...kept, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'clinic-tools-'));
  const env = bareEnv({
    PORT: String(await freePort()),
    NATS_PORT: String(await freePort()),
    DB_PORT: String(await freePort()),
    NATS_TLS: '1',
  });
  start = spawn(process.execPath, [cli('start')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  start.stdout?.on('data', (d) => (output += d));
  start.stderr?.on('data', (d) => (output += d));
  await eventually(async () => (/Admin token/.test(output) ? true : undefined), 120_000, 200).catch((err) => {
    throw new Error(`${(err as Error).message}\n${output}`);
  });
}, 150_000);
afterAll(async () => {
  if (start?.exitCode === null) {
    const exited = new Promise((resolve) => start.once('exit', resolve));
    start.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

it('writes where its NATS is and which CA it verifies against, for the tools beside it', () => {
  const running = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8'));
  expect(running.nats_url).toMatch(/^tls:\/\/127\.0\.0\.1:\d+$/);
  expect(existsSync(running.nats_tls_ca_file)).toBe(true);
});

it('seeds, backs up and restores with nothing but DATA_DIR', async () => {
  const seedFile = join(dataDir, 'seed-extra.json');
  writeFileSync(seedFile, JSON.stringify({ users: [{ id: 77, name: 'Seeded Beside' }] }));
  const seeded = await run(process.execPath, [cli('seed'), seedFile], { env: bareEnv() });
  expect(seeded.stdout).toMatch(/every service has applied them/);

  const backupDir = join(mkdtempSync(join(tmpdir(), 'clinic-tools-backup-')), 'backup');
  const backedUp = await run(process.execPath, [cli('backup'), backupDir], { env: bareEnv() });
  expect(backedUp.stdout).toMatch(/^Backed up /);
  expect(existsSync(join(backupDir, 'manifest.json'))).toBe(true);

  const restoredDir = mkdtempSync(join(tmpdir(), 'clinic-tools-restored-'));
  try {
    const restored = await run(process.execPath, [cli('restore'), backupDir], {
      env: bareEnv({ DATA_DIR: restoredDir }),
    });
    expect(restored.stdout).toMatch(/^Restored the backup/);
  } finally {
    rmSync(restoredDir, { recursive: true, force: true });
    rmSync(backupDir, { recursive: true, force: true });
  }
}, 120_000);

it("gives the gateway no database URL: it owns no data, and the database's password is not in its environment", () => {
  const gateway = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .find((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join('gateway', 'dist', 'main.js')) &&
          readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`DATA_DIR=${dataDir}`)
        );
      } catch {
        return false;
      }
    });
  expect(gateway).toBeDefined();
  const environ = readFileSync(`/proc/${gateway}/environ`, 'utf8').split('\0');
  expect(environ.filter((line) => line.startsWith('MONGO_URL='))).toEqual([]);
  const password = readFileSync(join(dataDir, 'ferretdb-password'), 'utf8').trim();
  expect(environ.some((line) => line.includes(password))).toBe(false);
});

it('keeps nothing of a backup that failed, and says why in one line', async () => {
  const exited = new Promise((resolve) => start.once('exit', resolve));
  start.kill('SIGTERM');
  await exited;
  const target = join(mkdtempSync(join(tmpdir(), 'clinic-tools-failed-')), 'backup');
  const failed = await run(process.execPath, [cli('backup'), target], { env: bareEnv() }).catch((err) => err);
  expect(failed.code).toBe(1);
  expect(failed.stderr.trim().split('\n')).toHaveLength(1);
  expect(failed.stderr).toMatch(/backup failed, nothing kept: /);
  expect(existsSync(target)).toBe(false);
}, 60_000);
