import { readFileSync } from 'node:fs';
import { DEV_JWT_SECRET, envInt, envOptional, envString, natsSettings, type NatsSettings } from '@clinic/service-kit';

export type JwtVerification =
  | { algorithm: 'HS256'; secret: string; isDevDefault: boolean }
  | { algorithm: 'RS256'; publicKey: string };

export interface GatewayConfig {
  host: string;
  port: number;
  nats: NatsSettings;
  jwt: JwtVerification;
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

/** A PEM given inline or as a path to a file. */
function readPem(value: string): string {
  return value.includes('-----BEGIN') ? value.replace(/\\n/g, '\n') : readFileSync(value, 'utf8');
}

export function jwtVerificationFromEnv(): JwtVerification {
  const publicKey = envOptional('JWT_PUBLIC_KEY');
  if (publicKey) return { algorithm: 'RS256', publicKey: readPem(publicKey) };
  const secret = envOptional('JWT_SECRET');
  return { algorithm: 'HS256', secret: secret ?? DEV_JWT_SECRET, isDevDefault: !secret };
}

export function gatewayConfig(): GatewayConfig {
  return {
    host: envString('HOST', '0.0.0.0'),
    port: envInt('PORT', 3000),
    nats: natsSettings(),
    jwt: jwtVerificationFromEnv(),
    requestTimeoutMs: envInt('REQUEST_TIMEOUT_MS', 5_000),
    healthTimeoutMs: envInt('HEALTH_TIMEOUT_MS', 1_000),
    bodyLimitBytes: envInt('BODY_LIMIT_BYTES', 512 * 1024),
    logLevel: envString('LOG_LEVEL', 'info'),
    rateLimit: rateLimitConfig(),
  };
}
