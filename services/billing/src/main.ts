import './tracing';
import { startService } from '@clinic/service-kit';
import { billingHandlers } from './adapter';
import { BillOperations, USER_NAMES_SCOPE } from './bills';
import { CatalogueClient } from './catalogue-client';
import { BillStore } from './storage';

void startService({
  name: 'billing',
  async setup({ db, ids, outbox, clock, refs, nc, cache, locks, log }) {
    const store = new BillStore(db, ids, outbox, clock, cache, log.child({ component: 'storage' }));
    await store.prepare();
    refs.onApplied(async (kind) => {
      if (kind === 'user') await cache.bump(USER_NAMES_SCOPE);
    });
    return billingHandlers(new BillOperations(store, refs, new CatalogueClient(nc), locks, clock));
  },
});
