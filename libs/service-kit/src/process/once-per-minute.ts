import { performance } from 'node:perf_hooks';
import type { Logger } from './logger';

/**
 * A warning per reason at most once a minute, with how many happened since the last one: what a flood of bad
 * messages can make a process write to its log is bounded.
 */
export class OncePerMinute {
  private readonly last = new Map<string, { at: number; since: number }>();

  constructor(private readonly log: Logger) {}

  warn(reason: string, fields: object, message: string): void {
    const now = performance.now();
    const seen = this.last.get(reason);
    if (seen && now - seen.at < 60_000) {
      seen.since++;
      return;
    }
    this.last.set(reason, { at: now, since: 0 });
    this.log.warn({ reason, ...fields, more_since_last: seen?.since ?? 0 }, message);
  }
}
