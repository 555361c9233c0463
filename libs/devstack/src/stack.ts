import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES, type ServiceName } from '@clinic/contracts';
import { provisionStack } from './provision';
import { installationSystems } from './outside-systems';
import { dockerAvailable, startContainerInfrastructure } from './containers';
import { externalInfrastructure, startLocalInfrastructure, type Infrastructure } from './infra';
import { httpRequest } from './http-client';
import { natsCredentialsEnv } from './nats-config';
import { localNatsTls } from './nats-tls';
import { serviceEntry } from './paths';
import { freeListeningPort, isPortFree, waitFor } from './ports';
import { ManagedProcess } from './process';
import { hasTokenKey, JWT_SECRET_FILE, ownSecret } from './secrets';
import { signingKeyOf, type SigningKey } from './tokens';
import { Supervisor, type SupervisorOptions } from './supervisor';
import type { MetricsTarget, StackOptions } from './stack-options';
import { repickTakenPort } from './taken-ports';

export type { GatewayTls, InfraChoice, MetricsTarget, StackOptions } from './stack-options';

/**
 * The whole system as child processes: NATS and the database (local, in
 * containers, or external), each service (optionally several replicas) and the
 * gateway. Used by `npm start`, the end-to-end tests, the benchmark and the
 * fault-injection suite alike.
 */
export class Stack {
  readonly services = new Map<ServiceName, ManagedProcess[]>();
  gateway!: ManagedProcess;
  gatewayUrl = '';
  /** The CA the gateway's HTTPS certificate chains to, for requests to it (undefined: plain HTTP or the system's CAs). */
  gatewayCa?: Buffer;
  /** Present when the stack supervises its processes. */
  supervisor?: Supervisor;

  private constructor(
    readonly options: StackOptions,
    readonly infra: Infrastructure,
  ) {}

  get logDir(): string {
    return this.options.logDir ?? join(this.options.dataDir, 'logs');
  }

  static async start(options: StackOptions): Promise<Stack> {
    const infra = await Stack.infrastructure(options);
    const stack = new Stack(options, infra);
    try {
      await stack.startApplication();
      if (options.supervise) stack.superviseAll(options.supervise === true ? {} : options.supervise);
      return stack;
    } catch (err) {
      await stack.stop().catch(() => undefined);
      throw err;
    }
  }

  private static async infrastructure(options: StackOptions): Promise<Infrastructure> {
    if (options.natsUrl && options.mongoUrl) {
      return externalInfrastructure(options.natsUrl, options.mongoUrl, options.dataDir);
    }
    const choice = options.infra ?? 'auto';
    const noneGiven =
      !options.natsUrl &&
      !options.mongoUrl &&
      (options.natsCluster ?? 1) === 1 &&
      !options.natsNetwork &&
      !options.natsTls;
    if (noneGiven && (choice === 'containers' || (choice === 'auto' && (await dockerAvailable())))) {
      return startContainerInfrastructure(options.dataDir);
    }
    return startLocalInfrastructure({
      dataDir: options.dataDir,
      logDir: options.logDir ?? join(options.dataDir, 'logs'),
      natsPort: options.natsPort,
      dbPort: options.dbPort,
      natsUrl: options.natsUrl,
      mongoUrl: options.mongoUrl,
      natsCluster: options.natsCluster,
      natsNetwork: options.natsNetwork,
      syncInterval: options.syncInterval,
      outsideSystems: installationSystems({ ...process.env, ...options.env }),
      natsTls: options.natsTls
        ? await localNatsTls(options.dataDir, options.natsCluster ?? 1, options.natsNetwork)
        : undefined,
    });
  }

  /** Every process this stack started: NATS nodes and database (when local), services, gateway. */
  private superviseAll(options: SupervisorOptions): void {
    const supervisor = new Supervisor(options);
    for (const node of this.infra.natsNodes) supervisor.watch(node.process, () => node.start());
    if (this.infra.db) supervisor.watch(this.infra.db, () => this.infra.startDb());
    for (const proc of [...this.services.values()].flat()) supervisor.watch(proc, async () => proc.start());
    supervisor.watch(this.gateway, async () => this.gateway.start());
    this.supervisor = supervisor;
  }

  private async startApplication(): Promise<void> {
    const requested = this.options.gatewayPort;
    if (requested && !(await isPortFree(requested))) {
      throw new Error(`Port ${requested} for the gateway is in use. Stop what uses it, or set PORT to another port.`);
    }
    await provisionStack(this.infra, { ...process.env, ...this.options.env });
    for (const name of SERVICE_NAMES) {
      const count = this.options.replicas?.[name] ?? 1;
      for (let i = 0; i < count; i++) await this.addReplica(name);
    }
    // Picked once the services run, right before the gateway binds it; waitStarted picks again if it is taken.
    const port = requested || (await freeListeningPort());
    this.useGatewayPort(port);
    const tls = this.options.gatewayTls;
    if (tls?.caFile) this.gatewayCa = readFileSync(tls.caFile);
    this.gateway = new ManagedProcess({
      name: 'gateway',
      command: process.execPath,
      args: [serviceEntry('gateway')],
      env: {
        // The gateway owns no data: it is given no database URL (nor its password).
        ...withoutKeys(this.baseEnv(), ['MONGO_URL']),
        ...natsCredentialsEnv('gateway', this.infra.natsPasswords),
        ...(await this.metricsEnv()),
        PORT: String(port),
        HOST: '127.0.0.1',
        ...(tls ? { TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile } : {}),
      },
      output: this.output('gateway'),
    });
    this.gateway.start();
    await this.waitStarted(this.options.readyTimeoutMs ?? 60_000);
  }

  private useGatewayPort(port: number): void {
    this.gatewayUrl = `${this.options.gatewayTls ? 'https' : 'http'}://127.0.0.1:${port}`;
  }

  /** waitHealthy, where a process that found a port the stack picked taken starts again on a fresh one. */
  private async waitStarted(timeoutMs: number, retries = 3): Promise<void> {
    try {
      await this.waitHealthy(timeoutMs);
    } catch (err) {
      let restarted = false;
      for (const proc of this.crashed()) {
        const picked = proc === this.gateway && !this.options.gatewayPort ? ['PORT', 'METRICS_PORT'] : ['METRICS_PORT'];
        const key = await repickTakenPort(proc, picked);
        if (!key) continue;
        if (key === 'PORT') this.useGatewayPort(Number(proc.spec.env?.PORT));
        proc.start();
        restarted = true;
      }
      if (!restarted || retries === 0) throw err;
      await this.waitStarted(timeoutMs, retries - 1);
    }
  }

  private baseEnv(): Record<string, string> {
    // Without a configured key, the stack's own secret, made in its data folder on the first start.
    const env = { ...process.env, ...this.options.env };
    const key: Record<string, string> = hasTokenKey(env)
      ? {}
      : { JWT_SECRET: ownSecret(this.options.dataDir, JWT_SECRET_FILE) };
    return {
      NATS_URL: this.infra.natsUrl,
      MONGO_URL: this.infra.mongoUrl,
      ...(this.infra.natsTlsCaFile ? { NATS_TLS_CA_FILE: this.infra.natsTlsCaFile } : {}),
      ...key,
      ...this.options.env,
    };
  }

  private output(name: string): ManagedProcess['spec']['output'] {
    return this.options.serviceOutput === 'inherit'
      ? { kind: 'inherit' }
      : { kind: 'file', path: join(this.logDir, `${name}.log`) };
  }

  /** A free port for a process's /metrics (it keeps it across restarts), unless metrics are off. */
  private async metricsEnv(): Promise<Record<string, string>> {
    if (this.options.metrics === false) return {};
    return { METRICS_PORT: String(await freeListeningPort()), METRICS_HOST: '127.0.0.1' };
  }

  /** The key that signs tokens this stack accepts: the configured one, else its own secret (not for JWKS). */
  signingKey(): SigningKey {
    const signing = signingKeyOf(this.options.dataDir, { ...process.env, ...this.options.env });
    if (!signing)
      throw new Error('This stack verifies tokens it cannot sign (JWT_PUBLIC_KEY or JWKS without a private key)');
    return signing;
  }

  /** Where Prometheus finds each process's metrics, by kind (gateway, billing...). */
  metricsTargets(): MetricsTarget[] {
    const all = [this.gateway, ...[...this.services.values()].flat()].filter(Boolean);
    const processes = all
      .filter((p) => p.spec.env?.METRICS_PORT)
      .map((p) => ({
        job: p.spec.name.replace(/-\d+$/, ''),
        replica: p.spec.name,
        address: `127.0.0.1:${p.spec.env!.METRICS_PORT}`,
      }));
    return [...processes, ...this.infra.metricsTargets];
  }

  /** Starts one more replica of a service (ops would run `--scale <service>=N`). */
  async addReplica(name: ServiceName, env: Record<string, string> = {}): Promise<ManagedProcess> {
    const replicas = this.services.get(name) ?? [];
    const proc = new ManagedProcess({
      name: `${name}-${replicas.length + 1}`,
      command: process.execPath,
      args: [serviceEntry(name)],
      env: {
        ...this.baseEnv(),
        ...natsCredentialsEnv(name, this.infra.natsPasswords),
        ...(await this.metricsEnv()),
        ...env,
      },
      output: this.output(`${name}-${replicas.length + 1}`),
    });
    proc.start();
    replicas.push(proc);
    this.services.set(name, replicas);
    return proc;
  }

  replica(name: ServiceName, index = 0): ManagedProcess {
    const proc = this.services.get(name)?.[index];
    if (!proc) throw new Error(`No replica ${index} of ${name}`);
    return proc;
  }

  /** Every managed process that stopped without being asked to. */
  crashed(): ManagedProcess[] {
    const all = [this.gateway, ...[...this.services.values()].flat()].filter(Boolean);
    return all.filter((p) => p.unexpectedExit !== null);
  }

  async health(): Promise<{ status: number; body: unknown }> {
    const response = await httpRequest(`${this.gatewayUrl}/health`, { ca: this.gatewayCa, timeoutMs: 3_000 });
    return { status: response.status, body: JSON.parse(response.body.toString()) };
  }

  /** Whether the gateway reports every service healthy: its envelope, not another server's answer on its port. */
  private async answeredByGateway(): Promise<boolean> {
    const { status, body } = await this.health();
    return status === 200 && (body as { success?: unknown }).success === true;
  }

  async waitHealthy(timeoutMs: number): Promise<void> {
    const failIfCrashed = () => {
      const crashed = this.crashed();
      if (crashed.length > 0) {
        const report = crashed.map((p) => `--- ${p.spec.name} exited ---\n${p.logTail()}`).join('\n');
        throw new Error(`Processes exited during start-up:\n${report}`);
      }
    };
    // waitFor takes a failed check for "not yet": a crash ends the wait here, and is reported after it.
    await waitFor(
      'the gateway to report every service healthy',
      async () => this.crashed().length > 0 || (await this.answeredByGateway()),
      timeoutMs,
      200,
    );
    failIfCrashed();
  }

  /** Gateway first, so no request arrives at a stopping service; the servers last. */
  async stop(): Promise<void> {
    this.supervisor?.stop();
    await this.gateway?.stop();
    await Promise.all([...this.services.values()].flat().map((p) => p.stop()));
    await this.infra.stop();
  }
}

function withoutKeys(env: Record<string, string | undefined>, keys: string[]): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !keys.includes(key)));
}
