/** How the API, the events and the history show a charge. */
import { fromCents, type ClinicClock } from '@clinic/service-kit';
import type { ChargeDoc, ChargeView } from '../domain/charge';

/** The charge as the API and its events show it. */
export function chargeView(doc: ChargeDoc, clock: ClinicClock): ChargeView {
  return {
    id: doc.id,
    charge_name: doc.charge_name,
    charge_type: doc.charge_type,
    amount: fromCents(doc.amount_cents),
    status: doc.status,
    notes: doc.notes,
    store_id: doc.store_id,
    created_by: doc.created_by,
    updated_by: doc.updated_by,
    created_at: clock.timestamp(doc.created_at),
    updated_at: clock.timestamp(doc.updated_at),
  };
}
