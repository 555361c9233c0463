/**
 * The local Go servers (nats-server and the embedded database) run with
 * GOGC=400 unless the environment sets GOGC: Go's default collected their
 * small, fast-churning heaps several hundred times a second (docs/PERFORMANCE.md).
 * Read from each running process's own environment.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';

const saved = process.env.GOGC;
const dirs: string[] = [];
let running: Infrastructure | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});
afterAll(() => {
  if (saved === undefined) delete process.env.GOGC;
  else process.env.GOGC = saved;
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function gogcOf(pid: number | undefined): string | undefined {
  if (pid === undefined) throw new Error('the server is not running');
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return environ.find((entry) => entry.startsWith('GOGC='))?.slice('GOGC='.length);
}

async function startServers(): Promise<Infrastructure> {
  const dir = mkdtempSync(join(tmpdir(), 'clinic-go-servers-'));
  dirs.push(dir);
  running = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  await running.startNats();
  return running;
}

it('starts nats-server and the embedded database with GOGC=400 by default', async () => {
  delete process.env.GOGC;
  const infra = await startServers();
  expect(gogcOf(infra.nats?.pid)).toBe('400');
  expect(gogcOf(infra.db?.pid)).toBe('400');
}, 60_000);

it('leaves a GOGC set in the environment as it is', async () => {
  process.env.GOGC = '150';
  const infra = await startServers();
  expect(gogcOf(infra.nats?.pid)).toBe('150');
  expect(gogcOf(infra.db?.pid)).toBe('150');
}, 60_000);
