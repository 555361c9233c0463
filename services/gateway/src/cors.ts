/**
 * CORS (@fastify/cors) for web apps on other origins: only the origins of
 * CORS_ORIGINS get CORS headers; any other origin gets none at all, so the
 * browser keeps its page from reading the answer. Preflights are answered in
 * the onRequest hook, before the token check, the 405 check and the rate
 * limit: a browser sends them without the Authorization header.
 */
import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { HeaderNames } from '@clinic/contracts';

/**
 * What a browser may send beyond the CORS-safelisted headers: the API's own, the W3C trace context and baggage
 * that OpenTelemetry's fetch instrumentation adds to every call (a client's `traceparent` is continued), and the
 * `X-Requested-With` some HTTP libraries add, and the `Cache-Control`/`Pragma` a page sets to keep browser caches
 * out of the way; a preflight refusing one of them fails every call of the page.
 */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'X-Correlation-Id',
  'traceparent',
  'tracestate',
  'baggage',
  'X-Requested-With',
  'Cache-Control',
  'Pragma',
] as const;

/** What a page may read of an answer beyond the CORS-safelisted headers. */
export const CORS_EXPOSED_HEADERS = [
  HeaderNames.correlationId,
  'etag',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'allow',
  'content-disposition',
] as const;

/** How long a browser may keep a preflight's answer (Chromium keeps at most 2 hours). */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * The allowlist as CORS_ORIGINS gives it: comma-separated origins
 * (`scheme://host[:port]`, exactly as a browser sends them). A value that is
 * not an origin stops the gateway at start-up rather than never matching.
 */
export function parseCorsOrigins(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin)
      throw new Error(`CORS_ORIGINS: "${origin}" is not an origin (scheme://host[:port], no path or trailing slash)`);
  }
  return origins;
}

/** Nothing is registered for an empty allowlist: no answer carries a CORS header. */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  await app.register(fastifyCors, {
    // false for any other origin: no CORS header at all, and a preflight is not answered as one.
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: PREFLIGHT_MAX_AGE_S,
    // Bearer tokens, no cookies.
    credentials: false,
    optionsSuccessStatus: 204,
    // An OPTIONS without Access-Control-Request-Method is answered 204 too, not with a text/plain 400.
    strictPreflight: false,
  });
}
