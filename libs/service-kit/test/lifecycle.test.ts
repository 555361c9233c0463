/** onShutdownSignal in a real child process (the built dist/process/lifecycle.js), signalled as a supervisor would. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const LIFECYCLE = join(__dirname, '..', 'dist', 'process', 'lifecycle.js');
const LOGGER = join(__dirname, '..', 'dist', 'process', 'logger.js');

interface Run {
  code: number | null;
  messages: string[];
}

/** Starts a process whose shutdown takes `shutdownMs`, runs `then` once it is ready, and reports its exit. */
function run(shutdownMs: number, then: (child: ReturnType<typeof spawn>) => void, extra = ''): Promise<Run> {
  const script = `
    const { onShutdownSignal } = require(${JSON.stringify(LIFECYCLE)});
    const { createLogger } = require(${JSON.stringify(LOGGER)});
    const log = createLogger('lifecycle-test', 'info');
    setInterval(() => {}, 1000);
    onShutdownSignal(log, () => new Promise((resolve) => setTimeout(resolve, ${shutdownMs})), 300);
    ${extra}
    process.stdout.write(JSON.stringify({ msg: 'ready' }) + '\\n');`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  let ready = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (!ready && output.includes('"ready"')) {
      ready = true;
      then(child);
    }
  });
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      const messages = output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).msg as string);
      resolve({ code, messages });
    });
  });
}

it('shuts down once on SIGTERM and exits 0', async () => {
  const result = await run(20, (child) => child.kill('SIGTERM'));
  expect(result).toEqual({ code: 0, messages: ['ready', 'shutting down', 'stopped'] });
});

it('exits 1 when the shutdown takes longer than allowed', async () => {
  const result = await run(5_000, (child) => child.kill('SIGINT'));
  expect(result).toEqual({ code: 1, messages: ['ready', 'shutting down', 'shutdown took too long: exiting'] });
});

it('exits 1 at once on a second signal', async () => {
  const result = await run(5_000, (child) => {
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGTERM'), 50);
  });
  expect(result).toEqual({ code: 1, messages: ['ready', 'shutting down', 'second signal: exiting now'] });
});

it('shuts down and exits 1 on an unhandled rejection', async () => {
  const result = await run(20, () => undefined, "setTimeout(() => Promise.reject(new Error('boom')), 50);");
  expect(result).toEqual({ code: 1, messages: ['ready', 'uncaught error: shutting down', 'stopped'] });
});
