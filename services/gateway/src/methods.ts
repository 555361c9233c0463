import { HTTP_ROUTES } from '@clinic/contracts';

const GATEWAY_OWN_ROUTES: Array<{ method: string; url: string }> = [
  { method: 'GET', url: '/health' },
  { method: 'GET', url: '/health/details' },
];

const matchers = [...HTTP_ROUTES, ...GATEWAY_OWN_ROUTES].map((route) => ({
  method: route.method,
  isStatic: !route.url.includes(':'),
  pattern: new RegExp(`^${route.url.replace(/:\w+/g, '[^/]+')}/?$`),
}));

/**
 * The methods the API offers on a path (GET brings HEAD), empty when the path
 * is unknown. A static path wins over a parameter that would also match it:
 * /lab_bills/summary offers GET only, although /lab_bills/{bill_id} has PUT.
 */
export function allowedMethods(url: string): string[] {
  const path = url.split('?')[0];
  const matching = matchers.filter((m) => m.pattern.test(path));
  const statics = matching.filter((m) => m.isStatic);
  const methods = new Set((statics.length > 0 ? statics : matching).map((m) => m.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
