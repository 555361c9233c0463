import './tracing';
import { connectNats, createLogger, exitOnStartupFailure, metricsSettings, onShutdownSignal, startMetrics, stopTracing } from '@clinic/service-kit';
import { buildGateway } from './app';
import { gatewayConfig } from './config';

async function main(): Promise<void> {
  const config = gatewayConfig();
  const log = createLogger('gateway', config.logLevel);
  try {
    if (config.jwt.algorithm === 'HS256' && config.jwt.isDevDefault) {
      if (process.env.NODE_ENV === 'production') {
        throw new Error('Set JWT_SECRET or JWT_PUBLIC_KEY: the development default secret is refused when NODE_ENV=production');
      }
      log.warn('JWT_SECRET is not set: using the development default secret. Never run production like this.');
    }
    const metrics = await startMetrics('gateway', metricsSettings(), log);
    const nc = await connectNats(config.nats, { name: 'gateway', log });
    const app = await buildGateway({ config, nc, log });
    await app.listen({ host: config.host, port: config.port });
    onShutdownSignal(log, async () => {
      await app.close();
      await nc.drain();
      await metrics?.close();
      await stopTracing();
    });
  } catch (err) {
    exitOnStartupFailure(log)(err);
  }
}

void main();
