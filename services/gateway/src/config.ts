import { readFileSync } from 'node:fs';
import {
  METRICS_ENV,
  integerVar,
  metricsSettingsOf,
  NATS_ENV,
  natsSettings,
  readEnv,
  textVar,
  TOKEN_ENV,
  tokenPolicyOf,
  type EnvProperties,
  type EnvValues,
  type MetricsSettings,
  type NatsSettings,
  type TokenPolicy,
} from '@clinic/service-kit';
import { PROXY_ENV, parseTrustedProxies } from './client-ip';
import { parseCorsOrigins } from './cors';
import type { ReplyCacheSettings } from './reply-cache';

export interface GatewayConfig {
  host: string;
  port: number;
  /** HTTPS with this certificate (chain) and key, both PEM (TLS_CERT_FILE, TLS_KEY_FILE); absent: plain HTTP. */
  tls?: { cert: Buffer; key: Buffer };
  nats: NatsSettings;
  /** The same token policy every service applies (libs/service-kit tokens.ts). */
  tokens: TokenPolicy;
  requestTimeoutMs: number;
  healthTimeoutMs: number;
  bodyLimitBytes: number;
  rateLimit: RateLimitConfig;
  metrics: MetricsSettings;
  /** CORS_ORIGINS: the web origins that get CORS headers; empty, none does. */
  corsOrigins: string[];
  replyCache: ReplyCacheSettings;
  /** TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client (client-ip.ts); empty, none. */
  trustedProxies: string[];
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

const RATE_LIMIT_ENV = {
  RATE_LIMIT_MAX: integerVar(
    0,
    "Reads per caller (the token's `sub`) and window; 0: no rate limits at all (compose: 1200).",
  ),
  RATE_LIMIT_WINDOW_MS: integerVar(60_000, "The rate limits' window."),
  RATE_LIMIT_WRITE_MAX: {
    type: 'integer',
    shownDefault: 'a quarter of `RATE_LIMIT_MAX`',
    description: 'POST, PUT and DELETE per caller and window, counted apart from reads.',
  },
  RATE_LIMIT_IP_MAX: {
    type: 'integer',
    shownDefault: '`RATE_LIMIT_MAX`',
    description: 'Requests without a token (docs) per IP address and window.',
  },
} as const satisfies EnvProperties;

export const GATEWAY_ENV = {
  HOST: { type: 'string', default: '0.0.0.0', description: 'The address the API listens on (npm start: `127.0.0.1`).' },
  PORT: integerVar(3000, "The API's port."),
  TLS_CERT_FILE: textVar('With `TLS_KEY_FILE` (PEM files): HTTPS; neither: plain HTTP.'),
  TLS_KEY_FILE: textVar('With `TLS_CERT_FILE`: HTTPS.'),
  REQUEST_TIMEOUT_MS: integerVar(5_000, 'How long a route waits for its service; then 504.'),
  HEALTH_TIMEOUT_MS: integerVar(1_000, 'How long `/health` waits for each part.'),
  BODY_LIMIT_BYTES: integerVar(512 * 1024, 'The largest body; above it, 413.'),
  CORS_ORIGINS: textVar(
    'Comma-separated origins (`https://app.clinic.lk`) whose web apps may call the API from a browser; unset: no CORS header on any answer (npm start: the local development servers, `http://localhost` and `http://127.0.0.1` on ports 3000, 3001, 4200, 5173 and 8080).',
  ),
  REPLY_CACHE_ENTRIES: integerVar(
    1000,
    "Hot reads' replies the gateway keeps per service, answered from memory while they are current (docs/CACHE.md); 0: none.",
  ),
  ...RATE_LIMIT_ENV,
  ...PROXY_ENV,
} as const satisfies EnvProperties;

export function rateLimitConfig(env: EnvValues<typeof RATE_LIMIT_ENV> = readEnv(RATE_LIMIT_ENV)): RateLimitConfig {
  const max = env.RATE_LIMIT_MAX;
  return {
    windowMs: env.RATE_LIMIT_WINDOW_MS,
    max,
    writeMax: env.RATE_LIMIT_WRITE_MAX ?? Math.max(1, Math.floor(max / 4)),
    ipMax: env.RATE_LIMIT_IP_MAX ?? max,
  };
}

/** Every variable the gateway reads: one schema. */
export const GATEWAY_PROCESS_ENV = { ...NATS_ENV, ...TOKEN_ENV, ...METRICS_ENV, ...GATEWAY_ENV } as const;

/** HTTPS when both files are named; one without the other stops the gateway rather than serve plain HTTP. */
export function tlsFiles(certFile: string | undefined, keyFile: string | undefined): GatewayConfig['tls'] {
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new Error('Set both TLS_CERT_FILE and TLS_KEY_FILE for HTTPS, or neither');
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

/** The gateway's settings, read with one schema; a bad value stops it at start-up. */
export function gatewayConfig(
  env: EnvValues<typeof GATEWAY_PROCESS_ENV> = readEnv(GATEWAY_PROCESS_ENV),
): GatewayConfig {
  return {
    host: env.HOST,
    port: env.PORT,
    tls: tlsFiles(env.TLS_CERT_FILE, env.TLS_KEY_FILE),
    nats: natsSettings(env),
    tokens: tokenPolicyOf(env),
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    healthTimeoutMs: env.HEALTH_TIMEOUT_MS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    rateLimit: rateLimitConfig(env),
    metrics: metricsSettingsOf(env),
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
    trustedProxies: parseTrustedProxies(env.TRUSTED_PROXIES),
    replyCache: {
      max: env.REPLY_CACHE_ENTRIES,
      ttl: 30_000,
      maxEntrySize: 1024 * 1024,
      maxSize: 64 * 1024 * 1024,
    },
  };
}
