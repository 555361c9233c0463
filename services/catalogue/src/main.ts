import './tracing';
import { startService } from '@clinic/service-kit/storage';
import { catalogueHandlers } from './adapter';
import { ApprovalsClient } from './approvals-client';
import { ChargeOperations } from './operations/charges';
import { CATALOGUE_ENV } from './env';
import { ChargeStorage } from './storage';
import { chargeView } from './views/charge-view';

void startService({
  name: 'catalogue',
  env: CATALOGUE_ENV,
  async setup({ db, ids, outbox, clock, cache, nc, settings }) {
    const storage = new ChargeStorage({ db, ids, outbox, cache, clock }, chargeView);
    await storage.prepare();
    const approvals = new ApprovalsClient(nc, settings.own.APPROVE_CATALOGUE_CHANGES === 'true');
    return catalogueHandlers(new ChargeOperations(storage, approvals));
  },
});
