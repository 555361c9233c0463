import type { Caller, ServiceRequest } from '@clinic/contracts';
import { ServiceError } from './errors';
import type { HandlerContext } from './runtime';
import { parseIntegerText } from './validation';

/**
 * The integer id in a path parameter. Anything else names no resource, so it
 * gets the resource's own 404.
 */
export function pathId(request: ServiceRequest, name: string, notFoundMessage: string): number {
  const id = parseIntegerText(request.params?.[name]);
  if (id === undefined || id < 1) throw new ServiceError(404, notFoundMessage);
  return id;
}

/** The caller of a subject whose access rule requires one (the runtime has checked it). */
export function callerOf(ctx: HandlerContext): Caller {
  if (!ctx.caller) throw new ServiceError(401, 'Authentication required.');
  return ctx.caller;
}
