import './tracing';
import { startService } from '@clinic/service-kit/storage';
import { catalogueHandlers } from './adapter';
import { ChargeOperations } from './charges';
import { ChargeStorage } from './storage';

void startService({
  name: 'catalogue',
  async setup({ db, ids, outbox, clock, cache }) {
    const storage = new ChargeStorage({ db, ids, outbox, cache, clock });
    await storage.prepare();
    return catalogueHandlers(new ChargeOperations(storage));
  },
});
