/**
 * A network namespace for one NATS node, made and removed by the test
 * (iproute2; root). The node takes clients on one veth pair and routes from the
 * other nodes on a second one, so a partition cuts the cluster routes while a
 * client can still talk to the node: that is how the test sees whether the
 * minority accepts writes.
 *
 *   host 10.251.X.1/30 <-> 10.251.X.2/30 netns   clients and monitoring of the node inside
 *   host 10.251.X.5/30 <-> 10.251.X.6/30 netns   cluster routes (the nodes outside listen on .5)
 *
 * Traffic never leaves the machine: the addresses exist only on these veths,
 * the namespace has no default route, and while the test runs a blackhole
 * route for the whole 10.251.X.0/24 (less specific than the veths' own) drops
 * anything for these addresses that would otherwise follow the host's default
 * route (while the namespace is being torn down, say).
 */
import { execFileSync } from 'node:child_process';

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const quietly = (fn: () => unknown) => {
  try {
    fn();
  } catch {
    // already gone
  }
};

export class NetnsNode {
  private partitioned = false;

  private constructor(
    readonly name: string,
    private readonly subnet: number,
  ) {}

  /** The address the node inside takes clients on. */
  get clientHost(): string {
    return `10.251.${this.subnet}.2`;
  }

  /** Route addresses: the nodes outside listen on the first, the node inside on the second. */
  get outsideRouteHost(): string {
    return `10.251.${this.subnet}.5`;
  }

  get insideRouteHost(): string {
    return `10.251.${this.subnet}.6`;
  }

  /** Claims a free subnet (the namespace name is the lock: `ip netns add` fails if it exists). */
  static create(): NetnsNode {
    const start = process.pid % 200;
    for (let i = 0; i < 50; i++) {
      const subnet = 20 + ((start + i) % 200);
      const name = `clinic-fault-${subnet}`;
      try {
        ip('netns', 'add', name);
      } catch {
        continue;
      }
      const node = new NetnsNode(name, subnet);
      try {
        node.wire();
        return node;
      } catch (err) {
        node.remove();
        throw err;
      }
    }
    throw new Error('No free clinic-fault-* network namespace');
  }

  private wire(): void {
    const s = this.subnet;
    ip('route', 'add', 'blackhole', `10.251.${s}.0/24`, 'metric', '4000');
    ip('netns', 'exec', this.name, 'ip', 'link', 'set', 'lo', 'up');
    for (const [pair, host, inside] of [
      ['c', 1, 2],
      ['r', 5, 6],
    ] as const) {
      const outer = `cf${pair}h${s}`;
      const inner = `cf${pair}n${s}`;
      ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
      ip('link', 'set', inner, 'netns', this.name);
      ip('addr', 'add', `10.251.${s}.${host}/30`, 'dev', outer);
      ip('link', 'set', outer, 'up');
      ip('netns', 'exec', this.name, 'ip', 'addr', 'add', `10.251.${s}.${inside}/30`, 'dev', inner);
      ip('netns', 'exec', this.name, 'ip', 'link', 'set', inner, 'up');
    }
  }

  /** Cuts the cluster routes both ways (blackhole routes); clients still reach the node. */
  partition(): void {
    ip('route', 'add', 'blackhole', `${this.insideRouteHost}/32`);
    ip('netns', 'exec', this.name, 'ip', 'route', 'add', 'blackhole', `${this.outsideRouteHost}/32`);
    this.partitioned = true;
  }

  heal(): void {
    if (!this.partitioned) return;
    quietly(() => ip('route', 'del', 'blackhole', `${this.insideRouteHost}/32`));
    quietly(() => ip('netns', 'exec', this.name, 'ip', 'route', 'del', 'blackhole', `${this.outsideRouteHost}/32`));
    this.partitioned = false;
  }

  /** Removes everything it made; safe to call twice and after a failure. */
  remove(): void {
    this.heal();
    quietly(() => ip('link', 'del', `cfch${this.subnet}`));
    quietly(() => ip('link', 'del', `cfrh${this.subnet}`));
    quietly(() => ip('netns', 'del', this.name));
    quietly(() => ip('route', 'del', 'blackhole', `10.251.${this.subnet}.0/24`, 'metric', '4000'));
  }
}

/** Where each of a three-node cluster's nodes listens: n3 in the namespace, n1 and n2 on the host end of its route veth. */
export function thirdNodeIn(ns: NetnsNode): (i: number) => { netns?: string; clientHost: string; clusterHost: string } {
  return (i) =>
    i === 2
      ? { netns: ns.name, clientHost: ns.clientHost, clusterHost: ns.insideRouteHost }
      : { clientHost: '127.0.0.1', clusterHost: ns.outsideRouteHost };
}
