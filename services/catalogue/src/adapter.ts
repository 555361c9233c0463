/** The NATS side of the catalogue: one handler per subject. */
import { CatalogueSubjects } from '@clinic/contracts';
import type { Handler } from '@clinic/service-kit';
import type { ChargeOperations } from './charges';

export function catalogueHandlers(charges: ChargeOperations): Record<string, Handler> {
  return {
    [CatalogueSubjects.create]: (req, ctx) => charges.create(req, ctx),
    [CatalogueSubjects.list]: (req, ctx) => charges.list(req, ctx),
    [CatalogueSubjects.get]: (req, ctx) => charges.get(req, ctx),
    [CatalogueSubjects.update]: (req, ctx) => charges.update(req, ctx),
    [CatalogueSubjects.delete]: (req, ctx) => charges.delete(req, ctx),
    [CatalogueSubjects.history]: (req, ctx) => charges.history(req, ctx),
    [CatalogueSubjects.check]: (req, ctx) => charges.check(req, ctx),
  };
}
