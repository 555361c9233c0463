/** The NATS side of the catalogue: one handler per subject. */
import { CatalogueSubjects } from '@clinic/contracts';
import { type Handler, subjectHandlers } from '@clinic/service-kit';
import type { ChargeOperations } from './operations/charges';

export function catalogueHandlers(charges: ChargeOperations): Record<string, Handler> {
  return subjectHandlers(CatalogueSubjects, charges, ['create', 'list', 'get', 'update', 'delete', 'history', 'check']);
}
