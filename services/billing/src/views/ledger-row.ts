/** A drawer entry as a ledger export's row shows it (EXPORT_LEDGER_COLUMNS). */
import { fromCents, type ClinicClock } from '@clinic/service-kit';
import type { DrawerEntryDoc } from '../domain/drawer-rows';
import type { LedgerEntryDoc } from '../domain/ledger-entry';

export function ledgerRow(
  entry: DrawerEntryDoc,
  context: {
    bill: { bill_number: string } | undefined;
    /** The entry as its bill's or appointment's ledger keeps it (a settlement's payout has none). */
    source: LedgerEntryDoc | undefined;
    names: Map<number, string>;
    clock: ClinicClock;
  },
): Record<string, unknown> {
  return {
    id: entry._id,
    day: entry.day,
    at: context.clock.timestamp(entry.at),
    kind: entry.kind,
    method: entry.method,
    amount: fromCents(entry.amount_cents),
    bill_id: entry.bill_id ?? null,
    bill_number: context.bill?.bill_number ?? null,
    appointment_id: entry.appointment_id ?? null,
    session_id: entry.session_id ?? null,
    collector: String(entry.collector),
    collector_name: typeof entry.collector === 'number' ? (context.names.get(entry.collector) ?? null) : null,
    role: entry.role,
    reference: context.source?.reference ?? null,
    reason: context.source?.reason ?? null,
  };
}
