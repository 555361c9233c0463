/**
 * A port the stack picked and another process bound first: the child that
 * failed to listen on it is given a fresh port, and nothing else is.
 * Real child processes and real sockets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canConnect, freeListeningPort, ManagedProcess, waitFor } from '../src';
import { portFoundInUse, repickTakenPort } from '../src/taken-ports';

const dir = mkdtempSync(join(tmpdir(), 'clinic-ports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Listens on PORT as the gateway does, and on failure logs the error as its pino fatal line would.
const LISTENER = `
const server = require('node:net').createServer();
server.on('error', (err) => {
  console.log(JSON.stringify({ level: 'fatal', err: { message: err.message, port: err.port }, msg: 'start-up failed' }));
  process.exit(1);
});
server.listen(Number(process.env.PORT), '127.0.0.1');`;

function listener(name: string, env: Record<string, string>): ManagedProcess {
  return new ManagedProcess({
    name,
    command: process.execPath,
    args: ['-e', LISTENER],
    env,
    output: { kind: 'file', path: join(dir, `${name}.log`) },
  });
}

async function occupied(): Promise<{ port: number; server: Server }> {
  const port = await freeListeningPort();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, server };
}

it('reads the port from a failed listen in a log', () => {
  const log = [
    '{"level":"info","msg":"metrics served","metrics_url":"http://127.0.0.1:30541/metrics"}',
    '{"level":"fatal","err":{"message":"listen EADDRINUSE: address already in use 127.0.0.1:23031","port":23031}}',
  ].join('\n');
  expect(portFoundInUse(log)).toBe('23031');
  expect(portFoundInUse('{"level":"fatal","err":{"message":"connect ECONNREFUSED 127.0.0.1:4222"}}')).toBeUndefined();
});

it('gives a process whose picked port was taken a fresh one, on which it starts', async () => {
  const { port, server } = await occupied();
  const proc = listener('gateway', { PORT: String(port), METRICS_PORT: '1' });
  proc.start();
  await proc.waitForExit();
  expect(proc.unexpectedExit).not.toBeNull();

  expect(await repickTakenPort(proc, ['METRICS_PORT'])).toBeNull(); // not the port that was taken
  expect(proc.spec.env?.PORT).toBe(String(port));
  expect(await repickTakenPort(proc, ['PORT', 'METRICS_PORT'])).toBe('PORT');
  const fresh = Number(proc.spec.env?.PORT);
  expect(fresh).not.toBe(port);
  expect(proc.spec.env?.METRICS_PORT).toBe('1');

  proc.start();
  await waitFor('the listener on its fresh port', () => canConnect(fresh), 5_000, 20);
  await proc.stop();
  server.close();
});

it('leaves a process that failed for another reason as it is', async () => {
  const { port, server } = await occupied();
  server.close();
  const proc = new ManagedProcess({
    name: 'crasher',
    command: process.execPath,
    args: ['-e', 'process.exit(3)'],
    env: { PORT: String(port) },
    output: { kind: 'file', path: join(dir, 'crasher.log') },
  });
  proc.start();
  await proc.waitForExit();
  expect(await repickTakenPort(proc, ['PORT'])).toBeNull();
  expect(proc.spec.env?.PORT).toBe(String(port));
});

it('never hands out the same port twice, even before the first is bound', async () => {
  const ports = new Set<number>();
  for (let i = 0; i < 500; i++) ports.add(await freeListeningPort());
  expect(ports.size).toBe(500); // 500 random picks from ~12,700 ports collide 99.99% of the time
});
