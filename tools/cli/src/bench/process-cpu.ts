/**
 * The CPU time a measured run cost each process of the stack, from /proc
 * (Linux): unlike req/s, what a request costs in CPU holds where a busy
 * machine makes throughput swing, and it shows which process a target waits on.
 */
import { readFileSync } from 'node:fs';
import type { Stack } from '@clinic/devstack';

/** CPU time (user and system, ms) a process has used; NaN when unreadable. */
export function cpuMs(pid: number | undefined): number {
  try {
    // Fields after the command name's closing parenthesis: utime and stime are the 12th and 13th (1/100 s each).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** The stack's Node processes (the gateway and every service replica) by name. */
export function nodeProcesses(stack: Stack): Record<string, number | undefined> {
  const named: Record<string, number | undefined> = { gateway: stack.gateway.pid };
  for (const [service, replicas] of stack.services) {
    replicas.forEach((replica, i) => {
      named[replicas.length > 1 ? `${service}-${i + 1}` : service] = replica.pid;
    });
  }
  return named;
}

/** Every process of the stack by name: its Node processes, the embedded database and the NATS servers. */
export function stackProcesses(stack: Stack): Record<string, number | undefined> {
  const named = nodeProcesses(stack);
  if (stack.infra.db) named.database = stack.infra.db.pid;
  for (const node of stack.infra.natsNodes) named[`nats ${node.name}`] = node.process.pid;
  return named;
}

/** Runs `run` and answers, beside its figures, the CPU ms each of `processes` spent per request it counted. */
export async function withCpuPerRequest<T extends { count: number }>(
  processes: Record<string, number | undefined>,
  run: () => Promise<T>,
): Promise<T & { cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid)]));
  const figures = await run();
  const cpu: Record<string, number> = {};
  for (const [name, pid] of Object.entries(processes)) {
    cpu[name] = Math.round(((cpuMs(pid) - before[name]!) / Math.max(1, figures.count)) * 1000) / 1000;
  }
  return { ...figures, cpu };
}

/** The sum of a run's CPU ms per request over its processes. */
export const totalCpu = (cpu: Record<string, number>): number =>
  Math.round(Object.values(cpu).reduce((sum, ms) => sum + ms, 0) * 1000) / 1000;

/** A run's CPU ms per request as the report prints it: each process, costliest first, then the sum. */
export function cpuByProcess(cpu: Record<string, number>): string {
  const each = Object.entries(cpu)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${ms}`)
    .join(', ');
  return `${each}; in all ${totalCpu(cpu)}`;
}
