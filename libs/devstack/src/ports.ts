import { readFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';

/** A TCP port that was free a moment ago on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The lowest port the kernel hands out for outgoing connections (and for port 0). */
export function ephemeralPortsStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * A free port below the kernel's ephemeral range, for a server a child
 * process starts later, or again after a restart: a port from freePort() can
 * meanwhile be taken by any outgoing connection on the machine, which never
 * uses ports below that range.
 */
export async function freeListeningPort(): Promise<number> {
  const top = Math.min(ephemeralPortsStart(), 65536) - 1;
  const bottom = Math.min(20_000, top - 1000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom));
    if (!handedOut.has(port) && (await bindable(port))) {
      handedOut.add(port);
      return port;
    }
  }
  return freePort();
}

/** Never the same port twice from one process: the child given the last one may not have bound it yet. */
const handedOut = new Set<number>();

/** Whether a TCP port on `host`, or a Unix socket (a path), accepts a connection. */
export function canConnect(target: number | string, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500);
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
    if (typeof target === 'string') socket.connect(target);
    else socket.connect(target, host);
  });
}

export async function isPortFree(port: number): Promise<boolean> {
  return !(await canConnect(port));
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
