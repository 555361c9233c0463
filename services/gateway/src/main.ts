import './tracing';
import {
  connectNats,
  createLogger,
  reportCertificateExpiry,
  runProcess,
  startMetrics,
  stopTracing,
} from '@clinic/service-kit';
import { buildGateway } from './app';
import { gatewayConfig } from './config';
import { ReplyCache } from './reply-cache';

async function main(): Promise<void> {
  const log = createLogger('gateway');
  await runProcess(log, async () => {
    // Refuses to start without a token key, and with NODE_ENV=production a short, guessable or published secret.
    const config = gatewayConfig();
    const metrics = await startMetrics('gateway', config.metrics, log);
    reportCertificateExpiry([process.env.TLS_CERT_FILE, config.nats.tlsCaFile]);
    const nc = await connectNats(config.nats, { name: 'gateway', log });
    const replies = ReplyCache.start(nc, log, config.replyCache);
    const app = await buildGateway({ config, nc, log, replies });
    await app.listen({ host: config.host, port: config.port });
    // Ready (GET /health on the metrics port) while it listens and NATS answers; the API's /health asks every service.
    metrics?.setReadiness(async () => {
      await nc.rtt();
      return true;
    });
    return async () => {
      await app.close();
      await nc.drain();
      await metrics?.close();
      await stopTracing();
    };
  });
}

void main();
