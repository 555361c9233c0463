import './tracing';
import { startService } from '@clinic/service-kit/storage';
import { catalogueHandlers } from './adapter';
import { ChargeOperations } from './charges';
import { ChargeStore } from './storage';

void startService({
  name: 'catalogue',
  async setup({ db, ids, outbox, clock, cache }) {
    const store = new ChargeStore({ db, ids, outbox, cache, clock });
    await store.prepare();
    return catalogueHandlers(new ChargeOperations(store, clock));
  },
});
