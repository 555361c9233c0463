import { createServer, type Server } from 'node:net';
import { createLogger } from '../src/process/logger';
import { countNatsRequest, metricsEnabled, startMetrics } from '../src/process/metrics';

const log = createLogger('test', 'silent');

function listen(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

it('keeps the process running without metrics when the port is taken', async () => {
  const taken = await listen();
  try {
    const port = (taken.address() as { port: number }).port;
    expect(await startMetrics('test', { port, host: '127.0.0.1' }, log)).toBeNull();
    expect(metricsEnabled()).toBe(false);
  } finally {
    taken.close();
  }
});

// One endpoint per process (prom-client's default metrics register once): /metrics, /health and the rest in one test.
it('serves the text format at /metrics, its readiness at /health, and nothing elsewhere', async () => {
  const probe = await listen();
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  const endpoint = await startMetrics('test', { port, host: '127.0.0.1' }, log);
  try {
    expect(endpoint?.url).toBe(`http://127.0.0.1:${port}/metrics`);
    countNatsRequest('billing.bill.create', '504');
    const response = await fetch(endpoint!.url);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('process_cpu_seconds_total{process_name="test"}');
    expect(text).toContain(
      'clinic_nats_requests_total{subject="billing.bill.create",outcome="504",process_name="test"} 1',
    );
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);

    // Readiness: 503 until the process gives its check, then what the check says; a failure or a hang is 503.
    const health = async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/health`);
      return { status: answer.status, body: await answer.json() };
    };
    expect(await health()).toEqual({ status: 503, body: { status: 'unavailable' } });
    let check: () => Promise<boolean> = async () => true;
    endpoint!.setReadiness(() => check());
    expect(await health()).toEqual({ status: 200, body: { status: 'ok' } });
    check = async () => {
      throw new Error('database unavailable');
    };
    expect(await health()).toEqual({ status: 503, body: { status: 'unavailable' } });
    check = () => new Promise<boolean>(() => undefined);
    expect(await health()).toEqual({ status: 503, body: { status: 'unavailable' } });
  } finally {
    await endpoint?.close();
  }
});
