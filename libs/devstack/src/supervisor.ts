import type { ManagedProcess, ProcessExit } from './process';

export interface SupervisorOptions {
  /** Restarts allowed within `windowMs`; one more exit in that window and the process is given up. */
  maxRestarts?: number;
  windowMs?: number;
  /** Delay before the first restart in a window, doubled for each further one, up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Where restarts and give-ups are reported (npm start: its console). */
  log?: (line: string) => void;
}

export interface SupervisionEvent {
  name: string;
  kind: 'restart' | 'gave-up';
  at: number;
  exit: ProcessExit;
}

const describeExit = (exit: ProcessExit) => (exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`);

/**
 * Restarts the processes it watches when they exit without being asked to,
 * with exponential backoff, and gives a process up after `maxRestarts` restarts
 * within `windowMs` (a crash loop), as an OTP supervisor's restart intensity
 * does. Stops and signals sent through ManagedProcess are intentional and are
 * left alone; so is everything once `stop()` is called.
 */
export class Supervisor {
  readonly events: SupervisionEvent[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly recent = new Map<string, number[]>();
  private stopped = false;
  private readonly maxRestarts: number;
  private readonly windowMs: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly log: (line: string) => void;

  constructor(options: SupervisorOptions = {}) {
    this.maxRestarts = options.maxRestarts ?? 5;
    this.windowMs = options.windowMs ?? 60_000;
    this.initialDelayMs = options.initialDelayMs ?? 200;
    this.maxDelayMs = options.maxDelayMs ?? 5_000;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /** `restart` starts the process again and resolves once it serves. */
  watch(proc: ManagedProcess, restart: () => Promise<void>): void {
    proc.onExit((exit) => {
      if (exit.expected || this.stopped) return;
      this.onCrash(proc, exit, restart);
    });
  }

  /** Whether the supervisor gave up on the named process. */
  gaveUp(name: string): boolean {
    return this.events.some((e) => e.name === name && e.kind === 'gave-up');
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private onCrash(proc: ManagedProcess, exit: ProcessExit, restart: () => Promise<void>): void {
    const name = proc.spec.name;
    const now = Date.now();
    const recent = (this.recent.get(name) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length >= this.maxRestarts) {
      this.events.push({ name, kind: 'gave-up', at: now, exit });
      const tail = proc.logTail(10);
      this.log(
        `[supervisor] giving up on ${name}: it exited (${describeExit(exit)}) after ${recent.length} restarts within ${this.windowMs / 1000} s. ` +
          `It stays stopped; /health reports it down until the stack is restarted.${tail ? `\nIts last log lines:\n${tail}` : ''}`,
      );
      return;
    }
    recent.push(now);
    this.recent.set(name, recent);
    const delay = Math.min(this.initialDelayMs * 2 ** (recent.length - 1), this.maxDelayMs);
    this.events.push({ name, kind: 'restart', at: now, exit });
    this.log(
      `[supervisor] ${name} exited unexpectedly (${describeExit(exit)}); restart ${recent.length} of at most ${this.maxRestarts} within ${this.windowMs / 1000} s, in ${delay} ms`,
    );
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopped || proc.running) return;
      restart().then(
        () => this.log(`[supervisor] ${name} restarted (pid ${proc.pid})`),
        // A restart that fails by exiting again is handled as the next crash.
        (err: unknown) => this.log(`[supervisor] ${name} did not come back: ${(err as Error).message.split('\n')[0]}`),
      );
    }, delay);
    this.timers.add(timer);
  }
}
