/**
 * A NATS node's monitoring endpoint (/varz, /jsz) as Prometheus metrics, under the names the maintained
 * prometheus-nats-exporter gives them, so that the same alert rules hold for npm start and compose. Compose
 * runs that exporter; the Go module proxy this stack builds from does not serve it (docs/operations.md).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge, Registry } from 'prom-client';

interface Varz {
  server_id: string;
  connections: number;
  total_connections: number;
  slow_consumers: number;
  subscriptions: number;
  in_msgs: number;
  out_msgs: number;
  in_bytes: number;
  out_bytes: number;
  mem: number;
  cpu: number;
  jetstream?: { config?: { max_memory?: number; max_storage?: number }; stats?: { memory?: number; storage?: number } };
}

interface Jsz {
  account_details?: Array<{
    stream_detail?: Array<{
      name: string;
      state: { messages: number; bytes: number };
      consumer_detail?: Array<{ name: string; num_pending: number; num_ack_pending: number }>;
    }>;
  }>;
}

const VARZ = {
  connections: 'Clients connected',
  total_connections: 'Clients connected since the server started',
  slow_consumers: 'Clients the server dropped messages for',
  subscriptions: 'Subscriptions',
  in_msgs: 'Messages received',
  out_msgs: 'Messages sent',
  in_bytes: 'Bytes received',
  out_bytes: 'Bytes sent',
  mem: 'Resident memory, bytes',
  cpu: 'CPU, percent of one core',
} as const;

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return (await response.json()) as T;
}

/** The metrics of the node at `monitorUrl`: `read` fetches them anew (each scrape). */
export function natsMetrics(monitorUrl: string): { registry: Registry; read(): Promise<void> } {
  const registry = new Registry();
  const gauge = (name: string, help: string, labels: string[]) =>
    new Gauge({ name, help, labelNames: ['server_id', ...labels], registers: [registry] });
  const varz = Object.fromEntries(
    Object.entries(VARZ).map(([field, help]) => [field, gauge(`gnatsd_varz_${field}`, help, [])]),
  ) as Record<keyof typeof VARZ, Gauge>;
  const js = {
    storage: gauge('gnatsd_varz_jetstream_stats_storage', 'JetStream file storage used, bytes', []),
    memory: gauge('gnatsd_varz_jetstream_stats_memory', 'JetStream memory storage used, bytes', []),
    maxStorage: gauge('gnatsd_varz_jetstream_config_max_storage', 'JetStream file storage allowed, bytes', []),
    maxMemory: gauge('gnatsd_varz_jetstream_config_max_memory', 'JetStream memory storage allowed, bytes', []),
    messages: gauge('jetstream_stream_total_messages', 'Messages a stream holds', ['stream_name']),
    bytes: gauge('jetstream_stream_total_bytes', 'Bytes a stream holds', ['stream_name']),
    pending: gauge('jetstream_consumer_num_pending', 'Messages a consumer has not been delivered', [
      'stream_name',
      'consumer_name',
    ]),
    ackPending: gauge('jetstream_consumer_num_ack_pending', 'Messages a consumer has not acknowledged', [
      'stream_name',
      'consumer_name',
    ]),
  };
  const read = async () => {
    registry.resetMetrics();
    const [v, j] = await Promise.all([
      json<Varz>(`${monitorUrl}/varz`),
      json<Jsz>(`${monitorUrl}/jsz?accounts=true&streams=true&consumers=true`),
    ]);
    const server = { server_id: v.server_id };
    for (const field of Object.keys(VARZ) as Array<keyof typeof VARZ>) varz[field].set(server, v[field] ?? 0);
    js.storage.set(server, v.jetstream?.stats?.storage ?? 0);
    js.memory.set(server, v.jetstream?.stats?.memory ?? 0);
    js.maxStorage.set(server, v.jetstream?.config?.max_storage ?? 0);
    js.maxMemory.set(server, v.jetstream?.config?.max_memory ?? 0);
    for (const stream of (j.account_details ?? []).flatMap((a) => a.stream_detail ?? [])) {
      const labels = { ...server, stream_name: stream.name };
      js.messages.set(labels, stream.state.messages);
      js.bytes.set(labels, stream.state.bytes);
      for (const consumer of stream.consumer_detail ?? []) {
        js.pending.set({ ...labels, consumer_name: consumer.name }, consumer.num_pending);
        js.ackPending.set({ ...labels, consumer_name: consumer.name }, consumer.num_ack_pending);
      }
    }
  };
  return { registry, read };
}

/** Serves natsMetrics on loopback (a free port, or `port`); a node that does not answer makes the scrape fail. */
export async function startNatsExporter(monitorUrl: string, port = 0): Promise<{ server: Server; address: string }> {
  const { registry, read } = natsMetrics(monitorUrl);
  const server = createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    read()
      .then(() => registry.metrics())
      .then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: Error) =>
          response.writeHead(503, { 'content-type': 'text/plain' }).end(`NATS not answering: ${err.message}\n`),
      );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, address: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}
