/**
 * The Clinic API's typed client: openapi-fetch over the types openapi-typescript
 * generates from docs/openapi.json (`npm run build` writes ./schema.ts).
 * Every path, parameter, body, answer and error envelope is typed from the
 * document, so a call the API would refuse for its shape does not compile; a
 * GET answered 304 (If-None-Match) is `{ notModified: true }`, not an error.
 *
 *   const api = createClinicClient({ baseUrl: 'https://clinic.example', token: () => session.token });
 *   const read = await api.GET('/lab_bills/{bill_id}', { params: { path: { bill_id: 12 } } });
 *   if (read.notModified) keep(); else if (read.error) show(read.error.code); else render(read.data.bill);
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import { answeringNotModified, type ConditionalGet } from './not-modified.js';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
export type { Answered, ConditionalGet, NotModified } from './not-modified.js';

export interface ClinicClientOptions extends ClientOptions {
  /** The API's origin (and prefix, behind a proxy): `https://clinic.example`. */
  baseUrl: string;
  /** The bearer token, or a function that gives the current one per request (after a refresh, say). */
  token?: string | (() => string | undefined | Promise<string | undefined>);
}

export type ClinicClient = Omit<Client<paths>, 'GET'> & { GET: ConditionalGet<paths> };

/** A client whose every request carries `Authorization: Bearer <token>` when a token is given. */
export function createClinicClient({ token, ...options }: ClinicClientOptions): ClinicClient {
  const client = createClient<paths>(options);
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        const current = typeof token === 'function' ? await token() : token;
        if (current) request.headers.set('authorization', `Bearer ${current}`);
        return request;
      },
    });
  }
  return { ...client, GET: answeringNotModified(client.GET) as ConditionalGet<paths> };
}
