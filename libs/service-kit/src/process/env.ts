/**
 * Settings from the environment, read with a JSON schema (env-schema, on
 * ajv): each process reads one schema, made of the parts it needs
 * (NATS_ENV, TOKEN_ENV, METRICS_ENV, its own), which gives the defaults, turns
 * integers into numbers and stops the process at start-up with a message
 * naming the variable when a value is refused. An empty variable counts as unset.
 */
import envSchema from 'env-schema';
import type { ErrorObject } from 'ajv';
import { withSecretFiles } from './secret-files';

/**
 * The schema of one variable. `description` is what docs/configuration.md says of it (`npm run docs` renders every
 * process's schema there); `shownDefault`, the default as the docs put it when the value depends on the machine.
 */
type Documented = { description?: string; shownDefault?: string };
export type EnvProperty =
  | ({ type: 'string'; default?: string; enum?: readonly string[] } & Documented)
  | ({ type: 'integer'; default?: number } & Documented);

export type EnvProperties = Record<string, EnvProperty>;

/** An integer variable, `fallback` when unset. */
export const integerVar = (fallback: number, description: string) =>
  ({ type: 'integer', default: fallback, description }) as const;

/** A text variable without a default: unset, it reads as undefined. */
export const textVar = (description: string) => ({ type: 'string', description }) as const;

/** What a schema reads: integers as numbers, and undefined where a variable without default is unset. */
export type EnvValues<P extends EnvProperties> = {
  [K in keyof P]: P[K] extends { type: 'integer' }
    ? P[K] extends { default: number }
      ? number
      : number | undefined
    : P[K] extends { default: string }
      ? string
      : string | undefined;
};

export const NATS_ENV = {
  NATS_URL: {
    type: 'string',
    default: 'nats://127.0.0.1:4222',
    description: "The NATS servers; a cluster's nodes comma-separated.",
  },
  NATS_USER: textVar("This process's NATS user (npm start sets it per process)."),
  NATS_PASSWORD: textVar("This process's NATS password (npm start sets it per process)."),
  NATS_TLS_CA_FILE: textVar(
    'Set: NATS over TLS only, the servers verified against this CA (npm start sets it under `NATS_TLS=1`).',
  ),
} as const satisfies EnvProperties;

export function readEnv<P extends EnvProperties>(properties: P, env: NodeJS.ProcessEnv = process.env): EnvValues<P> {
  const given: Record<string, string> = {};
  // Secrets given as files (JWT_SECRET_FILE...) read as the variables they stand for.
  const values = withSecretFiles(env);
  for (const name of Object.keys(properties)) {
    const value = values[name];
    if (value !== undefined && value !== '') given[name] = value;
  }
  const schema = {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, { shownDefault: _shown, ...property }]) => [
        name,
        property.type === 'integer'
          ? { ...property, minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }
          : property,
      ]),
    ),
  };
  try {
    return envSchema({ schema, data: given, env: false }) as EnvValues<P>;
  } catch (err) {
    const errors = (err as { errors?: ErrorObject[] }).errors;
    if (!errors) throw err;
    throw new Error(errors.map((error) => describe(error, properties, given)).join('; '));
  }
}

function describe(error: ErrorObject, properties: EnvProperties, given: Record<string, string>): string {
  const name = error.instancePath.slice(1);
  const property = properties[name];
  const raw = given[name];
  if (property?.type === 'integer') return `Environment variable ${name} must be an integer, got "${raw}"`;
  if (property?.type === 'string' && property.enum)
    return `${name} must be ${property.enum.join(' or ')}, got "${raw}"`;
  return `Environment variable ${name || '?'} ${error.message ?? 'is invalid'}`;
}
