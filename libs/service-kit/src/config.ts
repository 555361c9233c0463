/** Reads settings from the environment; a bad value stops the process at start-up. */
import { DEFAULT_EVENT_READERS, Limits } from '@clinic/contracts';

/**
 * DEVELOPMENT DEFAULT ONLY. Used when JWT_SECRET is unset so that a fresh clone
 * runs; `npm start` and the gateway warn about it. Never use it in production.
 */
export const DEV_JWT_SECRET = 'dev-only-insecure-jwt-secret-change-me';

export function envString(name: string, fallback?: string): string {
  const value = process.env[name];
  if (value !== undefined && value !== '') return value;
  if (fallback !== undefined) return fallback;
  throw new Error(`Environment variable ${name} is required`);
}

export function envOptional(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`Environment variable ${name} must be an integer, got "${raw}"`);
  return value;
}

export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export interface NatsSettings {
  url: string;
  user?: string;
  password?: string;
}

export interface ServiceSettings {
  nats: NatsSettings;
  mongoUrl: string;
  mongoDb: string;
  clinicTz: string;
  logLevel: string;
  /** NATS messages one reply may take at most (REPLY_CHUNKS_MAX); beyond, the caller gets 413. */
  replyChunksMax: number;
  /** Names of the durable pull consumers provisioned on the service's events stream for other systems (EVENT_READERS). */
  eventReaders: string[];
}

export function natsSettings(): NatsSettings {
  return {
    url: envString('NATS_URL', 'nats://127.0.0.1:4222'),
    user: envOptional('NATS_USER'),
    password: envOptional('NATS_PASSWORD'),
  };
}

export function serviceSettings(service: string): ServiceSettings {
  return {
    nats: natsSettings(),
    mongoUrl: envString('MONGO_URL', 'mongodb://127.0.0.1:27017/'),
    mongoDb: envString('MONGO_DB', `clinic_${service}`),
    clinicTz: envString('CLINIC_TZ', machineTimeZone()),
    logLevel: envString('LOG_LEVEL', 'info'),
    // At most what the NATS permissions let a service send per request.
    replyChunksMax: Math.min(envInt('REPLY_CHUNKS_MAX', Limits.replyChunksMax), Limits.replyChunksMax),
    eventReaders: consumerNames('EVENT_READERS', envString('EVENT_READERS', DEFAULT_EVENT_READERS.join(','))),
  };
}

/** A comma-separated list of JetStream consumer names (letters, digits, `-` and `_`). */
function consumerNames(variable: string, value: string): string[] {
  const names = [...new Set(value.split(',').map((name) => name.trim()).filter(Boolean))];
  const bad = names.filter((name) => !/^[A-Za-z0-9_-]{1,64}$/.test(name));
  if (bad.length > 0) throw new Error(`${variable}: ${bad.join(', ')} cannot name a consumer (letters, digits, - and _ only)`);
  return names;
}
