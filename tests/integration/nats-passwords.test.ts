import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { NATS_USERS } from '@clinic/contracts';
import { passwordVariable, startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';

// nats-server reads a $VARIABLE's value as config: passwords that look like a date, a float or a number made it
// refuse to start until the stack quoted them. Each user gets one such password here, through the environment.
const LOOKALIKES = ['2099-11-26', '12-q', '1.q', '1e5q', '4222', 'true', 'a"b\\c'];
const saved = { ...process.env };
let infra: Infrastructure | undefined;

beforeAll(async () => {
  NATS_USERS.forEach((user, i) => {
    process.env[passwordVariable(user)] = LOOKALIKES[i % LOOKALIKES.length];
  });
  const dir = mkdtempSync(join(tmpdir(), 'clinic-nats-passwords-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  await infra.startNats();
}, 60_000);

afterAll(async () => {
  process.env = saved;
  await infra?.stop();
});

it('starts nats-server with passwords that look like dates and numbers, and each user signs in with its own', async () => {
  for (const [i, user] of NATS_USERS.entries()) {
    const nc = await connect({ servers: infra!.natsUrl, user, pass: LOOKALIKES[i % LOOKALIKES.length] });
    await nc.close();
  }
  await expect(
    connect({ servers: infra!.natsUrl, user: NATS_USERS[0], pass: 'wrong', reconnect: false }),
  ).rejects.toThrow(/Authorization/i);
});
