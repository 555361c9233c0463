import './tracing';
import { startService } from '@clinic/service-kit';
import { catalogueHandlers } from './adapter';
import { ChargeOperations } from './charges';
import { ChargeRepository } from './repository';

void startService({
  name: 'catalogue',
  async setup({ db, ids, outbox, clock, cache, locks }) {
    const repo = new ChargeRepository(db, ids, outbox, clock, cache);
    await repo.ensureIndexes();
    return catalogueHandlers(new ChargeOperations(repo, locks));
  },
});
