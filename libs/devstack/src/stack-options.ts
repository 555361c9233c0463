import type { ServiceName } from '@clinic/contracts';
import type { NatsNodeNetwork } from './infra';
import type { SupervisorOptions } from './supervisor';

export type { MetricsTarget } from './prometheus';

export type InfraChoice = 'auto' | 'local' | 'containers';

export interface StackOptions {
  /** NATS JetStream store and FerretDB files live here (local servers only). */
  dataDir: string;
  logDir?: string;
  /** External servers: each one given replaces the local server of its kind. */
  natsUrl?: string;
  mongoUrl?: string;
  /** Where to get servers when none are given; `auto` uses testcontainers if a Docker engine answers. */
  infra?: InfraChoice;
  natsPort?: number;
  dbPort?: number;
  /** 0 or absent: a free port. */
  gatewayPort?: number;
  replicas?: Partial<Record<ServiceName, number>>;
  /** Extra environment for every service and the gateway. */
  env?: Record<string, string>;
  /** Each process serves Prometheus metrics on a free port of its own (default: on). */
  metrics?: boolean;
  /** Where service and gateway logs go: the console, or one file each under logDir. */
  serviceOutput?: 'inherit' | 'file';
  readyTimeoutMs?: number;
  /** Local NATS nodes: 1 (default) or 3 for a cluster (`NATS_CLUSTER=3`). */
  natsCluster?: number;
  /** Where each local NATS node listens (tests: a node in a network namespace). */
  natsNetwork?: (node: number) => NatsNodeNetwork;
  /** JetStream's sync_interval for local NATS nodes (`always`, `default`, a duration). */
  syncInterval?: string;
  /** Local NATS over TLS (`NATS_TLS=1`): a local CA and certificates in dataDir/tls; every process verifies against it. */
  natsTls?: boolean;
  /** The gateway serves HTTPS with these files; `caFile` is what the stack's own requests to it trust. */
  gatewayTls?: GatewayTls;
  /**
   * Restart processes that exit unexpectedly (npm start). Off by default: tests
   * stop and kill processes on purpose and keep control of when they return.
   */
  supervise?: boolean | SupervisorOptions;
}

export interface GatewayTls {
  certFile: string;
  keyFile: string;
  /** The CA that signed certFile (else the system's CAs). */
  caFile?: string;
}
