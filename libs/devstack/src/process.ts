import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { waitFor } from './ports';

/** Children still running when this process exits are killed, so none outlives its supervisor. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether the stack asked for it (stop, or a signal sent through `signal`). */
  expected: boolean;
}

export type OutputMode = { kind: 'inherit' } | { kind: 'file'; path: string };

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string | undefined>;
  output: OutputMode;
}

/**
 * A child process the stack started: it can be stopped gracefully (SIGTERM,
 * then SIGKILL after a grace period), killed outright, and started again.
 */
export class ManagedProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  private expectedExit = false;
  /** Set when the process exits without being asked to. */
  unexpectedExit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly exitListeners: Array<(exit: ProcessExit) => void> = [];

  constructor(readonly spec: ProcessSpec) {}

  /** Called after every exit of the process (a supervisor restarts it on an unexpected one). */
  onExit(listener: (exit: ProcessExit) => void): void {
    this.exitListeners.push(listener);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`${this.spec.name} is already running`);
    const { output } = this.spec;
    let stdio: 'inherit' | ['ignore', number, number] = 'inherit';
    let logFd: number | null = null;
    if (output.kind === 'file') {
      // Logs may name patients: their folder and files are their owner's alone.
      mkdirSync(dirname(output.path), { recursive: true, mode: 0o700 });
      // The child writes its log file itself: through a pipe, a busy supervisor
      // (a load generator, say) would stall every log line of the child.
      logFd = openSync(output.path, 'a', 0o600);
      stdio = ['ignore', logFd, logFd];
    }
    this.expectedExit = false;
    this.unexpectedExit = null;
    // Each child gets its own process group: a Ctrl-C in the terminal reaches
    // only the supervisor, which then stops the children in order.
    let child: ChildProcess;
    try {
      child = spawn(this.spec.command, this.spec.args, {
        env: { ...process.env, ...this.spec.env },
        stdio,
        detached: true,
      });
    } finally {
      if (logFd !== null) closeSync(logFd);
    }
    running.add(child);
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        running.delete(child);
        if (!this.expectedExit) this.unexpectedExit = { code, signal };
        resolve(code);
        for (const listener of this.exitListeners) listener({ code, signal, expected: this.expectedExit });
      });
      child.once('error', (err) => {
        this.unexpectedExit = { code: null, signal: null };
        if (output.kind === 'file') appendFileSync(output.path, `spawn failed: ${err.message}\n`);
        resolve(null);
      });
    });
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    this.expectedExit = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Sends a signal without waiting (kill -9 for fault tests, SIGSTOP/SIGCONT to pause). */
  signal(signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL' || signal === 'SIGTERM') this.expectedExit = true;
    this.child?.kill(signal);
  }

  /**
   * SIGSTOP, resolved once every thread has stopped (Linux's /proc): a thread running when the signal is sent runs
   * on for a moment, and a server may answer one more request in it.
   */
  async pause(): Promise<void> {
    const tasks = `/proc/${this.pid}/task`;
    // The state follows the thread's name in parentheses, which may hold anything; a zombie stops nothing more.
    const stopped = (task: string) => {
      const stat = readFileSync(`${tasks}/${task}/stat`, 'utf8');
      return ['T', 'Z'].includes(stat[stat.lastIndexOf(')') + 2] ?? '');
    };
    this.signal('SIGSTOP');
    const all = async () => !existsSync(tasks) || readdirSync(tasks).every(stopped);
    await waitFor(`${this.spec.name} to stop`, all, 5_000, 5);
  }

  async waitForExit(): Promise<number | null> {
    return this.exited;
  }

  /** The last lines of the process's log file, for error reports. */
  logTail(lines = 30): string {
    if (this.spec.output.kind !== 'file') return '';
    try {
      return readFileSync(this.spec.output.path, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

/** Waits until a started process serves, or reports its log if it exited. */
export async function waitServing(
  proc: ManagedProcess,
  what: string,
  serving: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  // waitFor takes a check that throws for "not yet": an exit ends the wait, and is thrown after it.
  await waitFor(what, async () => proc.unexpectedExit !== null || serving(), timeoutMs, 50);
  if (proc.unexpectedExit) throw new Error(`${proc.spec.name} exited:\n${proc.logTail()}`);
}
