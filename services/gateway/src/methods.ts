import type { FastifyInstance } from 'fastify';
import { HTTP_ROUTES } from '@clinic/contracts';

/** Where the OpenAPI and AsyncAPI documents are served; their routes answer another method with 404, as before. */
export const DOCS_PREFIX = '/docs';

/** Fastify's maxParamLength: a longer path parameter is answered 414 before any hook runs. */
export const PARAM_LENGTH_MAX = 100;

const TOO_LONG_FOR_A_PARAMETER = new RegExp(`[^/]{${PARAM_LENGTH_MAX + 1},}`, 'g');

/** The methods the API's routes use; Fastify adds HEAD to each GET route. */
const METHODS = [...new Set(['GET', 'HEAD', ...HTTP_ROUTES.map((route) => route.method)])];

/**
 * The methods the API offers on a path, as Fastify's router matches it
 * (`findRoute`), empty when the path is unknown. A static path wins over a
 * parameter that would also match it: /lab_bills/summary offers GET only,
 * although /lab_bills/{bill_id} has PUT.
 */
export function allowedMethods(app: FastifyInstance, url: string): string[] {
  const path = url
    // Without the query string.
    .replace(/\?.*/s, '')
    // One trailing slash is the path without it (the routes' own lookup is strict and answers 404).
    .replace(/(.)\/$/, '$1')
    // A segment too long for a parameter takes the parameter's place: the path's methods are those of its shape.
    .replace(TOO_LONG_FOR_A_PARAMETER, '_');
  if (path === DOCS_PREFIX || path.startsWith(`${DOCS_PREFIX}/`)) return [];
  const matches = METHODS.flatMap((method) => {
    // A static route is declared with the path itself; a parametric one matches with every parameter given.
    if (app.hasRoute({ method, url: path })) return [{ method, isStatic: true }];
    const params = app.findRoute({ method, url: path })?.params ?? {};
    const values = Object.values(params);
    return values.length > 0 && !values.includes('') ? [{ method, isStatic: false }] : [];
  });
  const statics = matches.filter((m) => m.isStatic);
  return (statics.length > 0 ? statics : matches).map((m) => m.method).sort();
}
