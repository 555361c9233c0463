// npm run fuzz: Schemathesis against the gateway's OpenAPI document, with every default check.
// Starts its own stack on free ports with the demo data; exits with Schemathesis's code.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, signToken, Stack } from '@clinic/devstack';
import { loadDemoDataOnFirstStart } from './demo';

const SCHEMATHESIS = join(REPO_ROOT, '.tools', 'venv', 'bin', 'st');
const say = (line: string) => process.stderr.write(`[fuzz] ${line}\n`);

/** Requests the gateway answered with a 5xx, from its one-line-per-request log. */
function serverErrors(logFile: string): Array<{ method: string; url: string; status: number; correlation_id: string }> {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"msg":"request completed"'))
    .map((line) => JSON.parse(line) as { method: string; url: string; status: number; correlation_id: string })
    .filter((entry) => entry.status >= 500);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-fuzz-'));
  say('starting a stack on free ports');
  const stack = await Stack.start({
    dataDir,
    infra: 'local',
    serviceOutput: 'file',
    env: { LOG_LEVEL: 'info' },
  });
  let code = 1;
  try {
    const token = signToken({ sub: 1, role: 'admin', expiresInSeconds: 4 * 3600 }, stack.signingKey());
    await loadDemoDataOnFirstStart(stack, token);
    const args = [
      '--config-file',
      join(REPO_ROOT, 'schemathesis.toml'),
      'run',
      `${stack.gatewayUrl}/docs/json`,
      '--header',
      `Authorization: Bearer ${token}`,
      '--workers',
      '2',
      '--max-examples',
      process.env.FUZZ_MAX_EXAMPLES ?? '100',
      '--no-color',
      // An export of a generated date range reads many pages: on a busy machine it outlasts the default.
      '--request-timeout',
      '60',
      ...process.argv.slice(2),
    ];
    say(`running: st ${args.filter((a) => !a.startsWith('Authorization')).join(' ')}`);
    code = await new Promise<number>((resolve) => {
      const child = spawn(SCHEMATHESIS, args, { stdio: 'inherit', cwd: REPO_ROOT });
      child.on('exit', (exitCode) => resolve(exitCode ?? 1));
    });
    const errors = serverErrors(join(stack.logDir, 'gateway.log'));
    say(`5xx answers logged by the gateway: ${errors.length}`);
    for (const e of errors)
      say(`  ${e.status} ${e.method} ${e.url} (correlation id ${e.correlation_id}; KEEP_FUZZ_DATA=1 keeps the logs)`);
  } finally {
    await stack.stop();
    if (!process.env.KEEP_FUZZ_DATA) rmSync(dataDir, { recursive: true, force: true });
    else say(`data and logs kept in ${dataDir}`);
  }
  process.exit(code);
}

main().catch((err: unknown) => {
  say(`failed: ${(err as Error).message}`);
  process.exit(1);
});
