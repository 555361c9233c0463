import type { FastifyRequest } from 'fastify';
import { tokenRefusalCode } from '@clinic/contracts';
import { TokenRefused, type TokenVerifier, type VerifiedCaller } from '@clinic/service-kit';
import { HttpError } from './errors';

/** The caller named by the request's bearer token (and the token, to forward), or a 401. */
export async function authenticate(request: FastifyRequest, verifyToken: TokenVerifier): Promise<VerifiedCaller> {
  try {
    return await verifyToken(request.headers.authorization);
  } catch (err) {
    if (err instanceof TokenRefused) throw new HttpError(tokenRefusalCode(err.message), err.message);
    throw err;
  }
}
