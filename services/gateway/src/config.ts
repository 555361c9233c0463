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
  rateLimit: RateLimitConfig;
}

/** Requests allowed per window; `max` 0 turns rate limiting off. */
export interface RateLimitConfig {
  windowMs: number;
  /** Per caller (token `sub`), reads. */
  max: number;
  /** Per caller, or per IP without a token: POST, PUT and DELETE. */
  writeMax: number;
  /** Per IP address, requests without a token (health, docs). */
  ipMax: number;
}

export function rateLimitConfig(): RateLimitConfig {
  const max = envInt('RATE_LIMIT_MAX', 0);
  return {
    windowMs: envInt('RATE_LIMIT_WINDOW_MS', 60_000),
    max,
    writeMax: envInt('RATE_LIMIT_WRITE_MAX', Math.max(1, Math.floor(max / 4))),
    ipMax: envInt('RATE_LIMIT_IP_MAX', max),
  };
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
    rateLimit: rateLimitConfig(),
  };
}
