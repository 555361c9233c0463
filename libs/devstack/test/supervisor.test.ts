/**
 * The supervisor against real child processes (small node scripts): it
 * restarts what exits unexpectedly, leaves intentional stops alone, and gives
 * up on a crash loop with a message that names the process.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess, Supervisor, waitFor } from '../src';

const dir = mkdtempSync(join(tmpdir(), 'clinic-supervisor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const node = (name: string, script: string) =>
  new ManagedProcess({
    name,
    command: process.execPath,
    args: ['-e', script],
    output: { kind: 'file', path: join(dir, `${name}.log`) },
  });

/** A started process under a supervisor whose log lines go to `lines`. */
function supervised(name: string, script: string, lines: string[], options = {}) {
  const sup = new Supervisor({ initialDelayMs: 20, maxDelayMs: 100, log: (line) => lines.push(line), ...options });
  const proc = node(name, script);
  sup.watch(proc, async () => proc.start());
  proc.start();
  return { sup, proc };
}

it('restarts a process killed from outside, and logs the restart', async () => {
  const lines: string[] = [];
  const { sup, proc } = supervised('sleeper', 'setInterval(() => {}, 1000)', lines);
  const first = proc.pid!;
  process.kill(first, 'SIGKILL'); // as an operator's kill -9 would
  await waitFor('a restart', async () => proc.running && proc.pid !== first, 5_000, 20);
  expect(lines[0]).toMatch(
    /^\[supervisor\] sleeper exited unexpectedly \(signal SIGKILL\); restart 1 of at most 5 within 60 s, in 20 ms$/,
  );
  await waitFor(
    'the restart to be logged',
    async () => lines.some((l) => l === `[supervisor] sleeper restarted (pid ${proc.pid})`),
    5_000,
    20,
  );
  sup.stop();
  await proc.stop();
});

it('leaves intentional stops and signals alone', async () => {
  const lines: string[] = [];
  const { sup, proc } = supervised('stopped', 'setInterval(() => {}, 1000)', lines);
  await proc.stop();
  proc.start();
  proc.signal('SIGKILL'); // a fault test's kill -9 through the stack
  await proc.waitForExit();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(proc.running).toBe(false);
  expect(sup.events).toEqual([]);
  expect(lines).toEqual([]);
});

it('gives up on a crash loop after the allowed restarts, with a clear message', async () => {
  const lines: string[] = [];
  const { sup, proc } = supervised('crasher', 'console.log("bad configuration"); process.exit(3)', lines, {
    maxRestarts: 3,
  });
  await waitFor('the supervisor to give up', async () => sup.gaveUp('crasher'), 10_000, 20);
  expect(sup.events.map((e) => e.kind)).toEqual(['restart', 'restart', 'restart', 'gave-up']);
  // Backoff: 20, 40, 80 ms.
  expect(lines.filter((l) => l.includes('exited unexpectedly')).map((l) => l.replace(/.* in (\d+) ms$/, '$1'))).toEqual(
    ['20', '40', '80'],
  );
  const giveUp = lines.find((l) => l.startsWith('[supervisor] giving up'))!;
  expect(giveUp).toContain('giving up on crasher: it exited (exit code 3) after 3 restarts within 60 s');
  expect(giveUp).toContain('bad configuration');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(proc.running).toBe(false);
  sup.stop();
});

it('pauses a process: resolved once every thread of it has stopped', async () => {
  // Two threads busy, so that threads are running when the signal is sent.
  const busy = node('busy', "new (require('node:worker_threads').Worker)('for (;;) {}', { eval: true }); for (;;) {}");
  busy.start();
  const tasks = `/proc/${busy.pid}/task`;
  const states = () =>
    readdirSync(tasks).map((task) => {
      const stat = readFileSync(`${tasks}/${task}/stat`, 'utf8');
      return stat[stat.lastIndexOf(')') + 2];
    });
  try {
    await waitFor('the worker', async () => states().filter((state) => state === 'R').length >= 2, 5_000, 20);
    await busy.pause();
    expect(new Set(states())).toEqual(new Set(['T']));
  } finally {
    busy.signal('SIGCONT');
    await busy.stop();
  }
});
