import { earnsTheDoctor, payoutOf, settlementLines, type SettledAppointment } from '../src/domain/settlement-rules';
import type { LedgerEntryDoc } from '../src/domain/ledger-entry';

/** A fee of 1500: the doctor's 1000, the hospital's 500. */
const fees = { doctor: 100_000, hospital: 50_000 };

const paid = (amount_cents: number) => ({ kind: 'payment', amount_cents, item_id: null }) as LedgerEntryDoc;
const refunded = (amount_cents: number, item_id: number | null = null) =>
  ({ kind: 'refund', amount_cents, item_id }) as LedgerEntryDoc;

describe('settlementLines: what the doctor earns per appointment of a completed session', () => {
  const appointment = (
    appointment_no: number,
    status: SettledAppointment['status'],
    ledger: LedgerEntryDoc[] | null,
  ): SettledAppointment => ({
    id: 70_000 + appointment_no,
    appointment_no,
    patient_name: `Patient ${appointment_no}`,
    status,
    doctor_fee_cents: 100_000,
    account: ledger ? { fees, ledger } : null,
  });

  const session = [
    appointment(3, 'consulted', [paid(150_000), refunded(100_000, 1)]),
    appointment(1, 'consulted', [paid(150_000)]),
    appointment(2, 'consulted', [paid(120_000), refunded(40_000)]),
    appointment(4, 'absent', [paid(150_000)]),
    appointment(5, 'cancelled', [paid(150_000), refunded(150_000)]),
    appointment(6, 'consulted', null),
    appointment(7, 'arrived', [paid(150_000)]),
  ];

  it('consulted ones, in number order: the doctor’s share paid less what of it was refunded', () => {
    const lines = settlementLines(session, false);
    expect(lines.map((l) => [l.appointment_no, l.doctor_paid_cents, l.doctor_refunded_cents, l.earned_cents])).toEqual([
      [1, 100_000, 0, 100_000],
      [2, 100_000, 20_000, 80_000],
      [3, 100_000, 100_000, 0],
      [6, 0, 0, 0],
    ]);
    expect(payoutOf(lines)).toBe(180_000);
    expect(lines[0]).toMatchObject({ appointment_id: 70_001, patient_name: 'Patient 1', doctor_fee_cents: 100_000 });
  });

  it('absent ones too when the doctor is paid for absent patients', () => {
    const lines = settlementLines(session, true);
    expect(lines.map((l) => l.appointment_no)).toEqual([1, 2, 3, 4, 6]);
    expect(payoutOf(lines)).toBe(280_000);
    expect(earnsTheDoctor('absent', false)).toBe(false);
    expect(earnsTheDoctor('cancelled', true)).toBe(false);
  });
});
