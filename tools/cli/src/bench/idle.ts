/**
 * Issue 41's stack at rest: `npm start` (its own data folder and port), left
 * alone a minute once ready (a process's first minute holds its start-up's
 * garbage collection and compilation), and the CPU all its processes spend
 * over the next minute, read from /proc. Target: at most 1% of one core in total. BENCH_PARTS=idle.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@clinic/devstack';
import { say } from './measure';
import { cpuMs } from './process-cpu';

const SETTLE_S = Number(process.env.BENCH_IDLE_SETTLE_S ?? 60);
const MEASURE_S = Number(process.env.BENCH_IDLE_S ?? 60);
export const IDLE_TARGET_PERCENT = 1;

export interface IdleFigures {
  seconds: number;
  /** CPU ms each process spent, by its command line. */
  processes: Record<string, number>;
  /** Of one core, every process together. */
  percent: number;
}

/** `root` and every process below it, by pid, with its command line. */
function tree(root: number): Map<number, string> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      parentOf.set(pid, Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = new Map<number, string>();
  const add = (pid: number) => {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    found.set(
      pid,
      command
        .slice(0, 2)
        .map((part) => part.split('/').slice(-3).join('/'))
        .join(' '),
    );
    for (const [child, parent] of parentOf) if (parent === pid) add(child);
  };
  add(root);
  return found;
}

export async function measureIdle(): Promise<IdleFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-idle-'));
  const child = spawn(process.execPath, [join(__dirname, '..', 'start.js')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      NATS_PORT: String(await freePort()),
      DB_PORT: String(await freePort()),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Clinic API:')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`npm start exited (${code}) before it was ready`)));
    });
    say(`npm start is ready; at rest for ${SETTLE_S} s, then measured for ${MEASURE_S} s`);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_S * 1000));
    const processes = tree(child.pid!);
    const before = new Map([...processes.keys()].map((pid) => [pid, cpuMs(pid)]));
    await new Promise((resolve) => setTimeout(resolve, MEASURE_S * 1000));
    const spent: Record<string, number> = {};
    for (const [pid, command] of processes) spent[`${command} (${pid})`] = cpuMs(pid) - before.get(pid)!;
    const total = Object.values(spent).reduce((sum, ms) => sum + (Number.isNaN(ms) ? 0 : ms), 0);
    return { seconds: MEASURE_S, processes: spent, percent: Math.round((total / (MEASURE_S * 1000)) * 10_000) / 100 };
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function idleLines(figures: IdleFigures): string[] {
  const lines = ['', `A stack at rest (npm start, no requests, ${figures.seconds} s): CPU ms by process`];
  for (const [name, ms] of Object.entries(figures.processes)) lines.push(`  ${String(ms).padStart(6)}  ${name}`);
  const met = figures.percent <= IDLE_TARGET_PERCENT;
  lines.push(
    `  ${met ? 'met   ' : 'MISSED'} every process together at most ${IDLE_TARGET_PERCENT}% of one core: ${figures.percent}%`,
  );
  return lines;
}
