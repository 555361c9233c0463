import './tracing';
import { startService } from '@clinic/service-kit';
import { billingHandlers } from './adapter';
import { BillOperations, USER_NAMES_SCOPE } from './bills';
import { CatalogueClient } from './catalogue-client';
import { BillStore } from './storage';

void startService({
  name: 'billing',
  env: {
    // `true` makes a cancellation without a reason a 400; unset or `false`, a reason is optional.
    CANCEL_REASON_REQUIRED: { type: 'string', enum: ['true', 'false'], default: 'false' },
  },
  async setup({ db, ids, outbox, clock, refs, nc, cache, log, settings }) {
    const store = new BillStore({ db, ids, outbox, cache, clock }, log.child({ component: 'storage' }));
    await store.prepare();
    refs.onApplied(async (kind) => {
      if (kind === 'user') await cache.bump(USER_NAMES_SCOPE);
    });
    return billingHandlers(
      new BillOperations(store, refs, new CatalogueClient(nc), clock, {
        cancelReasonRequired: settings.own.CANCEL_REASON_REQUIRED === 'true',
      }),
    );
  },
});
