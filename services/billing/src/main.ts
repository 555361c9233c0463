import { startService } from '@clinic/service-kit';
import { billingHandlers } from './adapter';
import { BillOperations } from './bills';
import { CatalogueClient } from './catalogue-client';
import { BillRepository } from './repository';

void startService({
  name: 'billing',
  async setup({ db, ids, outbox, clock, refs, nc, cache, locks }) {
    const repo = new BillRepository(db, ids, outbox, clock, cache);
    await repo.ensureIndexes();
    return billingHandlers(new BillOperations(repo, refs, new CatalogueClient(nc), locks));
  },
});
