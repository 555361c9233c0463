import { counter, metricsEnabled } from '@clinic/service-kit';

const billsCreated = counter(
  'clinic_bills_created_total',
  'Lab bills stored by this replica (an Idempotency-Key replay is not counted)',
);

export function countBillCreated(): void {
  if (metricsEnabled()) billsCreated.inc();
}
