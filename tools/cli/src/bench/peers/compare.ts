/**
 * Issue 41's yardstick: the charge list of branch 1 read again and again
 * through this project's gateway and through a cached Moleculer (its
 * MemoryCacher, moleculer-web, fast-jwt, a NATS transporter to a separate
 * process, the same embedded database), at 1 and 64 connections, in turn, on
 * one machine in one run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { canConnect, freePort, natsServerBinary, waitFor } from '@clinic/devstack';
import { autocannon, say, type Request } from '../measure';
import type { LatencyStats } from '../stats';
import type { Target } from '../target';

export const PEER_CONNECTIONS = [1, 64];
const READ: Request = { method: 'GET', path: '/hospital_charges', query: { store_id: '1' } };

export interface PeerFigures {
  ours: Record<number, LatencyStats>;
  moleculer: Record<number, LatencyStats>;
}

function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the Moleculer peer exited (${code}) before it was ready`)));
  });
}

export async function measurePeers(target: Target): Promise<PeerFigures | null> {
  const signing = target.stack?.signingKey();
  if (signing?.algorithm !== 'HS256' || !target.mongoUrl) return null;
  const natsPort = await freePort();
  const children: ChildProcess[] = [
    spawn(natsServerBinary(), ['-a', '127.0.0.1', '-p', String(natsPort)], { stdio: 'ignore' }),
  ];
  try {
    await waitFor("the peer's nats-server", () => canConnect(natsPort), 10_000, 50);
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    const apiPort = await freePort();
    const charges = spawn(process.execPath, [join(__dirname, 'moleculer-charges.js'), natsUrl, target.mongoUrl], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const api = spawn(process.execPath, [join(__dirname, 'moleculer-api.js'), natsUrl, String(apiPort)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, JWT_SECRET: signing.key },
    });
    children.push(charges, api);
    await Promise.all([started(charges), started(api)]);
    const peer = { ...target, gatewayUrl: `http://127.0.0.1:${apiPort}` };
    // Both discover each other over the transporter; the first read fills the cache.
    await waitFor(
      'the Moleculer peer to answer',
      async () => {
        const response = await fetch(`${peer.gatewayUrl}/hospital_charges?store_id=1`, {
          headers: { authorization: `Bearer ${target.token}` },
        });
        return response.status === 200;
      },
      30_000,
    );
    const figures: PeerFigures = { ours: {}, moleculer: {} };
    for (const c of PEER_CONNECTIONS) {
      say(`GET /hospital_charges at ${c} connection(s): this project's gateway, then the cached Moleculer`);
      figures.ours[c] = await autocannon(target, READ, c);
      figures.moleculer[c] = await autocannon(peer, READ, c);
    }
    return figures;
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}

export function peerLines(figures: PeerFigures): string[] {
  const lines = ['', 'GET /hospital_charges?store_id=1, repeated: req/s (p50 ms), this project vs a cached Moleculer'];
  for (const c of PEER_CONNECTIONS) {
    const [ours, theirs] = [figures.ours[c]!, figures.moleculer[c]!];
    const ratio = ours.rps / Math.max(1, theirs.rps);
    lines.push(
      `  ${String(c).padStart(2)} conn: ${ours.rps} (${ours.p50}) vs ${theirs.rps} (${theirs.p50}): ${ratio.toFixed(2)}x ${ratio >= 1 && ours.errors === 0 ? 'met' : 'MISSED'}`,
    );
  }
  return lines;
}
