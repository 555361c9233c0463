/** The NATS side of the catalogue: one handler per subject. */
import { CatalogueSubjects } from '@clinic/contracts';
import { callerOf, type Handler } from '@clinic/service-kit';
import type { ChargeOperations } from './charges';

export function catalogueHandlers(charges: ChargeOperations): Record<string, Handler> {
  return {
    [CatalogueSubjects.create]: (req, ctx) => charges.create(req, callerOf(ctx), ctx.correlationId),
    [CatalogueSubjects.list]: (req) => charges.list(req),
    [CatalogueSubjects.get]: (req) => charges.get(req),
    [CatalogueSubjects.update]: (req, ctx) => charges.update(req, callerOf(ctx), ctx.correlationId),
    [CatalogueSubjects.delete]: (req, ctx) => charges.delete(req, callerOf(ctx), ctx.correlationId),
    [CatalogueSubjects.history]: (req) => charges.history(req),
    [CatalogueSubjects.check]: (req) => charges.check(req),
  };
}
