/** A service's settings: one schema (env.ts) of the kit's variables and the service's own; a bad value stops it at start-up. */
import { Limits } from '@clinic/contracts';
import { integerVar, NATS_ENV, readEnv, type EnvProperties, type EnvValues } from './env';
import { METRICS_ENV, metricsSettingsOf, type MetricsSettings } from './metrics';
import { TOKEN_ENV, tokenPolicyOf, type TokenPolicy } from '../auth/tokens';

export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export interface NatsSettings {
  url: string;
  user?: string;
  password?: string;
  /** TLS, verifying the server against this CA (NATS_TLS_CA_FILE). */
  tlsCaFile?: string;
}

export interface ServiceSettings<Own extends EnvProperties = EnvProperties> {
  nats: NatsSettings;
  mongoUrl: string;
  mongoDb: string;
  clinicTz: string;
  /** UNKNOWN_BODY_FIELDS: whether the spec's routes refuse the body fields they do not name. */
  unknownBodyFields: 'ignore' | 'refuse';
  /** NATS messages one reply may take at most (REPLY_CHUNKS_MAX); beyond, the caller gets 413. */
  replyChunksMax: number;
  tokens: TokenPolicy;
  metrics: MetricsSettings;
  /** The service's own variables, read with the same schema. */
  own: EnvValues<Own>;
}

export function natsSettings(env: EnvValues<typeof NATS_ENV> = readEnv(NATS_ENV)): NatsSettings {
  return { url: env.NATS_URL, user: env.NATS_USER, password: env.NATS_PASSWORD, tlsCaFile: env.NATS_TLS_CA_FILE };
}

/** The variables every service reads besides NATS_ENV, TOKEN_ENV and METRICS_ENV. */
export const serviceEnv = (service: string) =>
  ({
    MONGO_URL: { type: 'string', default: 'mongodb://127.0.0.1:27017/', description: 'The database.' },
    MONGO_DB: { type: 'string', default: `clinic_${service}`, description: "The service's database name." },
    CLINIC_TZ: {
      type: 'string',
      default: machineTimeZone(),
      shownDefault: "the machine's time zone",
      description:
        'The clinic\'s time zone: "today", a day\'s bounds, timestamps (npm start and compose set Asia/Colombo unless told otherwise).',
    },
    UNKNOWN_BODY_FIELDS: {
      type: 'string',
      enum: ['ignore', 'refuse'],
      default: 'ignore',
      description:
        "Fields a body of the spec's routes does not name: `ignore` them, as the original service did, or `refuse` them (400, or 422 on the session routes, `field` naming the first). The routes beyond the spec always refuse them.",
    },
    REPLY_CHUNKS_MAX: integerVar(
      Limits.replyChunksMax,
      'NATS messages one reply may take (at most what the NATS permissions allow); beyond, 413.',
    ),
  }) as const satisfies EnvProperties;

/** Every variable the kit reads in a service (a service adds its own). */
export const serviceKitEnv = (service: string) =>
  ({ ...NATS_ENV, ...TOKEN_ENV, ...METRICS_ENV, ...serviceEnv(service) }) as const;

export function serviceSettings<Own extends EnvProperties>(service: string, own?: Own): ServiceSettings<Own> {
  const env = readEnv({ ...serviceKitEnv(service), ...own });
  return {
    nats: natsSettings(env),
    mongoUrl: env.MONGO_URL,
    mongoDb: env.MONGO_DB,
    clinicTz: env.CLINIC_TZ,
    unknownBodyFields: env.UNKNOWN_BODY_FIELDS as 'ignore' | 'refuse',
    // At most what the NATS permissions let a service send per request.
    replyChunksMax: Math.min(env.REPLY_CHUNKS_MAX, Limits.replyChunksMax),
    tokens: tokenPolicyOf(env),
    metrics: metricsSettingsOf(env),
    own: env as EnvValues<Own>,
  };
}
