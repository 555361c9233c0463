import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { goServerEnv, natsServerBinary } from './paths';
import { freeListeningPort, isPortFree, waitFor } from './ports';
import { ManagedProcess, waitServing } from './process';
import { embeddedDb } from './embedded-db';
import type { OutsideSystem } from '@clinic/contracts';
import { natsServerPasswordEnv, renderNatsConfig, routeEnv, type NatsTlsFiles } from './nats-config';
import { natsPasswords, privateDir } from './secrets';
import { startNatsExporter } from './nats-exporter';
import type { MetricsTarget } from './prometheus';

/** One nats-server of the local infrastructure. */
export interface NatsNode {
  /** server_name: n1, n2, ... */
  name: string;
  process: ManagedProcess;
  /** nats://host:port clients connect to. */
  url: string;
  /** nats://host:port other nodes route to (a cluster's node). */
  routeUrl?: string;
  /** The monitoring endpoint (http://host:port): /healthz, /varz, /jsz. */
  monitorUrl: string;
  /** Starts it (again, on the same ports and store) and waits until it serves. */
  start(): Promise<void>;
}

/** The two servers everything else needs. */
export interface Infrastructure {
  kind: 'local' | 'containers' | 'external';
  /** Every NATS node's URL, comma-separated (what NATS_URL takes). */
  natsUrl: string;
  mongoUrl: string;
  /** Passwords of the NATS users (see libs/contracts nats-permissions). */
  natsPasswords: Record<string, string>;
  /** With NATS over TLS: the CA every client verifies the servers against. */
  natsTlsCaFile?: string;
  /** Present for local servers, which fault tests stop and start on the same port and data. */
  nats?: ManagedProcess;
  /** Every local NATS node (one, or the nodes of a cluster). */
  natsNodes: NatsNode[];
  db?: ManagedProcess;
  /** What Prometheus scrapes of the servers: each NATS node (through an exporter) and the database. */
  metricsTargets: MetricsTarget[];
  startNats(): Promise<void>;
  startDb(): Promise<void>;
  stop(): Promise<void>;
}

/** Where a NATS node listens; tests put a node in a network namespace to partition it. */
export interface NatsNodeNetwork {
  /** Run the node inside this network namespace (`ip netns exec`). */
  netns?: string;
  /** The address it takes clients (and monitoring) on. */
  clientHost: string;
  /** The address it takes routes from the other nodes on. */
  clusterHost: string;
}

export interface LocalInfraOptions {
  dataDir: string;
  logDir: string;
  natsPort?: number;
  dbPort?: number;
  /** An external NATS server: no local one is started. */
  natsUrl?: string;
  /** An external database server: no local one is started. */
  mongoUrl?: string;
  /** Number of NATS nodes: 1 (a single server) or a cluster (3). */
  natsCluster?: number;
  /** Per node (0-based), where it listens; default loopback. */
  natsNetwork?: (node: number) => NatsNodeNetwork;
  /** JetStream's sync_interval (`always`, `default` or a duration); see nats-config. */
  syncInterval?: string;
  /** The outside systems that get NATS users (default: OUTSIDE_SYSTEMS_FILE's, else `hospital`). */
  outsideSystems?: readonly OutsideSystem[];
  /** NATS over TLS with these files (nats-tls.ts makes them); clients then use tls:// URLs. */
  natsTls?: NatsTlsFiles;
}

async function portFor(requested: number | undefined, what: string): Promise<number> {
  // Below the ephemeral range: the server may bind it again after a restart, when an outgoing connection could hold it.
  if (requested === undefined || requested === 0) return freeListeningPort();
  if (!(await isPortFree(requested))) {
    throw new Error(`Port ${requested} for ${what} is in use. Stop what uses it, or set the port/URL to use another.`);
  }
  return requested;
}

/** The ports of the client URLs a cluster node advertises to its clients (its monitoring endpoint's varz). */
async function advertisedPorts(node: NatsNode): Promise<Set<string>> {
  const response = await fetch(`${node.monitorUrl}/varz`, { signal: AbortSignal.timeout(2_000) });
  const varz = (await response.json()) as { connect_urls?: string[] };
  return new Set((varz.connect_urls ?? []).map((hostPort) => hostPort.slice(hostPort.lastIndexOf(':') + 1)));
}

async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return response.ok;
}

/**
 * The local NATS nodes: one server as before (`nats.conf` and `jetstream/`
 * under `natsDir`), or a cluster whose node i has `n<i>.conf` and `n<i>/`.
 * With a fixed base port P the cluster's nodes take P, P+1, ... for clients,
 * P+2000+i for routes and P+4000+i for monitoring (4222.., 6222.., 8222..).
 */
async function natsNodes(
  options: LocalInfraOptions,
  natsDir: string,
  passwords: Record<string, string>,
): Promise<NatsNode[]> {
  const count = options.natsCluster ?? 1;
  const base = options.natsPort || 0;
  const port = (offset: number, node: number, what: string) => portFor(base ? base + offset + node : 0, what);
  const nodes: Array<{ name: string; network: NatsNodeNetwork; client: number; route: number; monitor: number }> = [];
  for (let i = 0; i < count; i++) {
    const network = options.natsNetwork?.(i) ?? { clientHost: '127.0.0.1', clusterHost: '127.0.0.1' };
    nodes.push({
      name: `n${i + 1}`,
      network,
      client: await port(0, i, `NATS node ${i + 1}`),
      route: count > 1 ? await port(2000, i, `NATS node ${i + 1}'s routes`) : 0,
      monitor: await port(4000, i, `NATS node ${i + 1}'s monitoring`),
    });
  }
  // nats-server does not take a single server's streams into a cluster (it restores them locally, and the
  // cluster answers "stream not found"), and the services' read models remember stream sequences: refuse
  // to start one kind on the other's data rather than lose or ignore reference records.
  const otherKind = count === 1 ? join(natsDir, 'n1') : join(natsDir, 'jetstream');
  if (existsSync(otherKind)) {
    const was = count === 1 ? 'a NATS cluster' : 'a single NATS server';
    throw new Error(
      `${options.dataDir} holds the data of ${was}; start it as it was (NATS_CLUSTER), or delete that folder to start afresh.`,
    );
  }
  const routes = nodes.map((n) => `nats://${n.network.clusterHost}:${n.route}`);
  // The nodes' own: made for this start, given to each node in its environment, never written down.
  const routeCredentials = count > 1 ? routeEnv(routes, randomBytes(24).toString('hex')) : {};
  return nodes.map((node) => {
    const single = count === 1;
    const storeDir = single ? join(natsDir, 'jetstream') : join(natsDir, node.name, 'jetstream');
    const configPath = join(natsDir, single ? 'nats.conf' : `${node.name}.conf`);
    const { clientHost } = node.network;
    writeFileSync(
      configPath,
      renderNatsConfig({
        listen: `${clientHost}:${node.client}`,
        storeDir,
        systems: options.outsideSystems,
        syncInterval: options.syncInterval,
        tls: options.natsTls,
        http: `${clientHost}:${node.monitor}`,
        ...(single
          ? {}
          : {
              serverName: node.name,
              cluster: { name: 'clinic', listen: `${node.network.clusterHost}:${node.route}`, routes },
            }),
      }),
    );
    const bin = natsServerBinary();
    const proc = new ManagedProcess({
      name: single ? 'nats' : `nats-${node.name}`,
      command: node.network.netns ? 'ip' : bin,
      args: [...(node.network.netns ? ['netns', 'exec', node.network.netns, bin] : []), '-c', configPath],
      env: { ...goServerEnv(), ...natsServerPasswordEnv(passwords), ...routeCredentials },
      output: { kind: 'file', path: join(options.logDir, single ? 'nats.log' : `nats-${node.name}.log`) },
    });
    const monitorUrl = `http://${clientHost}:${node.monitor}`;
    return {
      name: node.name,
      process: proc,
      url: `${options.natsTls ? 'tls' : 'nats'}://${clientHost}:${node.client}`,
      routeUrl: single ? undefined : routes[nodes.indexOf(node)],
      monitorUrl,
      async start() {
        if (!proc.running) proc.start();
        // A cluster node serves once JetStream is current with the cluster (meta leader known, streams caught up).
        await waitServing(proc, `${proc.spec.name} on port ${node.client}`, () => httpOk(`${monitorUrl}/healthz`));
      },
    };
  });
}

/**
 * nats-server with JetStream (one, or a cluster of nodes) and the embedded
 * FerretDB as child processes on loopback; either is skipped when an external
 * URL is given for it.
 */
export async function startLocalInfrastructure(options: LocalInfraOptions): Promise<Infrastructure> {
  const dbPort = options.mongoUrl ? 0 : await portFor(options.dbPort, 'the database');
  const natsDir = join(options.dataDir, 'nats');
  const dbDir = join(options.dataDir, 'ferretdb');
  // Every folder its owner's alone (0700; one made before this rule is taken back): they hold patient data.
  for (const dir of [options.dataDir, natsDir, dbDir]) privateDir(dir);
  // The local server's users get passwords of this stack's own; an external server's are given (or in DATA_DIR).
  const passwords = natsPasswords(options.dataDir, { make: !options.natsUrl, systems: options.outsideSystems });
  const nodes = options.natsUrl ? [] : await natsNodes(options, natsDir, passwords);

  const dbMetricsPort = options.mongoUrl ? 0 : await freeListeningPort();
  const db = options.mongoUrl ? undefined : embeddedDb({ ...options, dbDir, port: dbPort, metricsPort: dbMetricsPort });
  // NATS's monitoring in Prometheus's format, served by this process (nats-exporter.ts): idle until scraped.
  const exporters = await Promise.all(
    nodes.map(async (node) => ({ node, ...(await startNatsExporter(node.monitorUrl)) })),
  );
  const metricsTargets: MetricsTarget[] = [
    ...exporters.map(({ node, address }) => ({ job: 'nats', replica: `nats-${node.name}`, address })),
    ...(db ? [{ job: 'database', replica: 'ferretdb', address: `127.0.0.1:${dbMetricsPort}` }] : []),
  ];
  const infra: Infrastructure = {
    kind: 'local',
    natsUrl: options.natsUrl ?? nodes.map((n) => n.url).join(','),
    mongoUrl: options.mongoUrl ?? db!.url,
    natsPasswords: passwords,
    natsTlsCaFile: options.natsTls?.caFile,
    nats: nodes[0]?.process,
    natsNodes: nodes,
    db: db?.process,
    metricsTargets,
    startNats: async () => {
      await Promise.all(nodes.map((n) => n.start()));
      // A service counts the cluster's nodes from the client URLs its node advertises (streamReplicas), and a
      // node that is healthy may not have learned every peer's yet: a service started then would make its
      // streams with fewer replicas. So the cluster is up once every node advertises every node's client port
      // (by port: a node listening on every interface advertises one address per interface).
      if (nodes.length > 1) {
        const ports = nodes.map((node) => new URL(node.url).port);
        await waitFor(
          'every NATS node to advertise the whole cluster',
          async () =>
            (await Promise.all(nodes.map(advertisedPorts))).every((advertised) =>
              ports.every((port) => advertised.has(port)),
            ),
          30_000,
          50,
        );
      }
    },
    startDb: async () => db?.start(),
    async stop() {
      for (const { server } of exporters) server.close();
      await Promise.all([...nodes.map((n) => n.process.stop()), db?.process.stop()]);
    },
  };
  try {
    await Promise.all([infra.startNats(), options.mongoUrl ? undefined : infra.startDb()]);
  } catch (err) {
    await infra.stop();
    throw err;
  }
  return infra;
}

export function externalInfrastructure(natsUrl: string, mongoUrl: string, dataDir: string): Infrastructure {
  const unsupported = async () => {
    throw new Error('External servers are not managed by this stack');
  };
  return {
    kind: 'external',
    natsUrl,
    mongoUrl,
    natsPasswords: natsPasswords(dataDir),
    natsNodes: [],
    metricsTargets: [],
    startNats: unsupported,
    startDb: unsupported,
    stop: async () => undefined,
  };
}
