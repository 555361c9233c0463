import fastifyJwt from '@fastify/jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUTH_MESSAGES, type Caller } from '@clinic/contracts';
import type { JwtVerification } from './config';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const TOKEN_MESSAGES = {
  missing: AUTH_MESSAGES.unauthenticated,
  invalid: 'Invalid token.',
  expired: 'Token expired.',
  claims: 'Invalid token: the sub and role claims are required.',
} as const;

/** Verification is pinned to one algorithm, so `alg: none` and algorithm swaps fail. */
export async function registerJwt(app: FastifyInstance, jwt: JwtVerification): Promise<void> {
  await app.register(fastifyJwt, {
    secret: jwt.algorithm === 'HS256' ? jwt.secret : { public: jwt.publicKey },
    // Verified tokens are cached (fast-jwt still checks their expiry on every use).
    verify: { algorithms: [jwt.algorithm], requiredClaims: ['exp'], cache: 10_000 },
  });
}

function isCallerClaims(value: unknown): value is { sub: number | string; role: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { sub, role } = value as { sub?: unknown; role?: unknown };
  const validSub = (typeof sub === 'string' && sub !== '') || (typeof sub === 'number' && Number.isSafeInteger(sub));
  return validSub && typeof role === 'string' && role !== '';
}

/** The caller named by the request's bearer token, or a 401. */
export async function authenticate(request: FastifyRequest): Promise<Caller> {
  if (!request.headers.authorization) throw new HttpError(401, TOKEN_MESSAGES.missing);
  let claims: unknown;
  try {
    claims = await request.jwtVerify();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_JWT_NO_AUTHORIZATION_IN_HEADER') throw new HttpError(401, TOKEN_MESSAGES.missing);
    if (code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED') throw new HttpError(401, TOKEN_MESSAGES.expired);
    throw new HttpError(401, TOKEN_MESSAGES.invalid);
  }
  if (!isCallerClaims(claims)) throw new HttpError(401, TOKEN_MESSAGES.claims);
  return { sub: claims.sub, role: claims.role };
}
