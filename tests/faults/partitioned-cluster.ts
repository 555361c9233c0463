/**
 * The stack the cluster fault files share: a three-node NATS cluster with n3 in
 * a network namespace (netns.ts), so that a test can partition it away, and
 * the Main branch seeded.
 */
import type { NatsConnection } from 'nats';
import { JS } from '@clinic/contracts';
import { eventually, startTestStack, type TestStack, type TestStackOptions } from '../e2e/harness';
import { type NetnsNode, thirdNodeIn } from './netns';

/** The stack with n3 in `ns`; `ns` is removed when the stack fails to start. */
export async function startWithThirdNodeIn(ns: NetnsNode, options: TestStackOptions = {}): Promise<TestStack> {
  try {
    const t = await startTestStack({ ...options, natsCluster: 3, natsNetwork: thirdNodeIn(ns) });
    await t.seed({ stores: [{ id: 1, name: 'Main', status: 'active' }] });
    return t;
  } catch (err) {
    ns.remove();
    throw err;
  }
}

/** Closes the test's own connections, heals the partition, stops the stack, removes `ns` (any may be missing). */
export async function stopWithThirdNodeIn(ns?: NetnsNode, t?: TestStack, connections: NatsConnection[] = []) {
  await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
  ns?.heal();
  await t?.stop();
  ns?.remove();
}

/**
 * Hands `stream`'s leadership to node `name` and waits until the cluster says so: a partition then cuts off the
 * leader itself, which goes on believing it leads until it notices it lost its quorum (nats-server: 10 to 20 s).
 */
export async function leadOn(t: TestStack, stream: string, name: string): Promise<void> {
  const nc = await t.nats('provisioner');
  const jsm = await nc.jetstreamManager();
  await eventually(async () => {
    if ((await jsm.streams.info(stream)).cluster?.leader === name) return true;
    await nc.request(JS.streamLeaderStepdown(stream), JSON.stringify({ placement: { preferred: name } }), {
      timeout: 5_000,
    });
    return undefined;
  });
}

/** The JetStream meta group's leader, as the first node that answers and knows one says. */
async function metaLeader(t: TestStack): Promise<string | undefined> {
  for (const n of t.stack.infra.natsNodes) {
    try {
      const response = await fetch(`${n.monitorUrl}/jsz`, { signal: AbortSignal.timeout(1_000) });
      const leader = ((await response.json()) as { meta_cluster?: { leader?: string } }).meta_cluster?.leader;
      if (leader) return leader;
    } catch {
      // Stopped, or starting: ask the next.
    }
  }
  return undefined;
}

/**
 * Makes node `name` the JetStream meta leader, which answers the JetStream API for the whole cluster (stepping it
 * down is the system account's, and the stack has no user there): the leader is restarted until `name` is elected.
 */
export async function metaLeadOn(t: TestStack, name: string): Promise<void> {
  for (let restarts = 0; restarts < 8; restarts++) {
    const leader = await eventually(() => metaLeader(t), 30_000);
    if (leader === name) return;
    const node = t.stack.infra.natsNodes.find((n) => n.name === leader)!;
    await node.process.stop();
    await eventually(async () => {
      const now = await metaLeader(t);
      return now && now !== leader ? now : undefined;
    }, 30_000);
    await node.start();
  }
  throw new Error(`the meta leader is still not ${name} after 8 restarts`);
}
