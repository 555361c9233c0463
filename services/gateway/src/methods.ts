import type { FastifyInstance } from 'fastify';
import { HTTP_ROUTES } from '@clinic/contracts';

/** Where the OpenAPI and AsyncAPI documents are served; their routes answer another method with 404, as before. */
export const DOCS_PREFIX = '/docs';

/** Fastify's maxParamLength: a longer path parameter is answered 414 before any hook runs. */
export const PARAM_LENGTH_MAX = 100;

const TOO_LONG_FOR_A_PARAMETER = new RegExp(`[^/]{${PARAM_LENGTH_MAX + 1},}`, 'g');

/** The methods the API's routes use; Fastify adds HEAD to each GET route. */
const METHODS = [...new Set(['GET', 'HEAD', ...HTTP_ROUTES.map((route) => route.method)])];

/** A request's path as the router matches it: without the query string, one trailing slash taken off. */
function routerPath(url: string): string {
  return url.replace(/\?.*/s, '').replace(/(.)\/$/, '$1');
}

/**
 * The static paths of the app's routes, as they are added (call before any route is): a request that a
 * parametric route matched can be of a method its path does not have only when its path is one of these
 * (PUT /lab_bills/summary matched PUT /lab_bills/:bill_id), so every other one skips allowedMethods' lookups.
 */
export function staticPathsOf(app: FastifyInstance): (url: string) => boolean {
  const paths = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (!/[:*]/.test(route.url)) paths.add(route.url);
  });
  return (url) => paths.has(routerPath(url));
}

/**
 * The methods the API offers on a path, as Fastify's router matches it
 * (`findRoute`), empty when the path is unknown. A static path wins over a
 * parameter that would also match it: /lab_bills/summary offers GET only,
 * although /lab_bills/{bill_id} has PUT.
 */
export function allowedMethods(app: FastifyInstance, url: string): string[] {
  // A segment too long for a parameter takes the parameter's place: the path's methods are those of its shape.
  const path = routerPath(url).replace(TOO_LONG_FOR_A_PARAMETER, '_');
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
