import './tracing';
import { envOptional, startService } from '@clinic/service-kit';
import { billingHandlers } from './adapter';
import { BillOperations, USER_NAMES_SCOPE } from './bills';
import { CatalogueClient } from './catalogue-client';
import { BillStore } from './storage';

void startService({
  name: 'billing',
  async setup({ db, ids, outbox, clock, refs, nc, cache, locks, log }) {
    const store = new BillStore({ db, ids, outbox, locks, cache, clock }, log.child({ component: 'storage' }));
    await store.prepare();
    refs.onApplied(async (kind) => {
      if (kind === 'user') await cache.bump(USER_NAMES_SCOPE);
    });
    return billingHandlers(new BillOperations(store, refs, new CatalogueClient(nc), clock, { cancelReasonRequired: cancelReasonRequired() }));
  },
});

/** CANCEL_REASON_REQUIRED: `true` makes a cancellation without a reason a 400; unset or `false`, a reason is optional. */
function cancelReasonRequired(): boolean {
  const value = envOptional('CANCEL_REASON_REQUIRED');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new Error(`CANCEL_REASON_REQUIRED must be true or false, got "${value}"`);
}
