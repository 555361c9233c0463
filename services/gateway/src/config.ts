import { envInt, envString, natsSettings, tokenPolicyFromEnv, type NatsSettings, type TokenPolicy } from '@clinic/service-kit';

export interface GatewayConfig {
  host: string;
  port: number;
  nats: NatsSettings;
  /** The same token policy every service applies (libs/service-kit tokens.ts). */
  tokens: TokenPolicy;
  requestTimeoutMs: number;
  healthTimeoutMs: number;
  bodyLimitBytes: number;
  logLevel: string;
}

export function gatewayConfig(): GatewayConfig {
  return {
    host: envString('HOST', '0.0.0.0'),
    port: envInt('PORT', 3000),
    nats: natsSettings(),
    tokens: tokenPolicyFromEnv(),
    requestTimeoutMs: envInt('REQUEST_TIMEOUT_MS', 5_000),
    healthTimeoutMs: envInt('HEALTH_TIMEOUT_MS', 1_000),
    bodyLimitBytes: envInt('BODY_LIMIT_BYTES', 512 * 1024),
    logLevel: envString('LOG_LEVEL', 'info'),
  };
}
