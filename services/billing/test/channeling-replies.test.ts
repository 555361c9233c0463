import { readCancelled, readChanneling } from '../src/views/channeling-replies';
import { parseBalances, parseFormat, parseReason, parseSettlement } from '../src/domain/channeling-input';
import { paymentStatusOf } from '../src/views/channeling-views';

const session = {
  id: 12,
  store_id: 3,
  store_name: 'Main',
  doctor_id: 4,
  doctor_name: 'Dr. Perera',
  session_date: '2096-05-01',
  start_time: '18:00',
  end_time: '21:00',
  closed_as: 'completed',
  paid_for_absent: false,
  max_patients: 40,
};
const appointment = {
  id: 120_003,
  session_id: 12,
  appointment_no: 3,
  estimated_time: '18:20',
  status: 'consulted',
  patient_name: 'නිමල් පෙරේරා',
  patient_contact: '0771234567',
  store_id: 3,
  doctor_id: 4,
  session_date: '2096-05-01',
  doctor_fee: 1500.5,
  hospital_fee: 750.25,
  total_fee: 2250.75,
};

describe('what sessions answers, read into cents', () => {
  it('reads a session and its appointments, the fee split in cents, the rest passed on as shown', () => {
    const read = readChanneling({ success: true, session, appointments: [appointment] });
    expect(read.session).toMatchObject({
      id: 12,
      closed_as: 'completed',
      paid_for_absent: false,
      doctor_name: 'Dr. Perera',
    });
    expect(read.appointments[0]).toMatchObject({
      id: 120_003,
      fees: { doctor: 150_050, hospital: 75_025 },
      total_fee_cents: 225_075,
      status: 'consulted',
    });
    expect(read.appointments[0]!.view).toEqual(appointment);
  });

  it('leaves out a payment sessions may show, and reads a cancellation', () => {
    const shown = { ...appointment, status: 'cancelled', payment: { paid_amount: 1 } };
    const read = readCancelled({ success: true, appointment: shown, already: true });
    expect(read.already).toBe(true);
    expect(read.appointment.view).not.toHaveProperty('payment');
  });

  it.each([
    ['a status no appointment has', { ...appointment, status: 'paid' }],
    ['a fee that is not an amount', { ...appointment, doctor_fee: '1500' }],
    ['a total that is not the sum of the split', { ...appointment, total_fee: 2250 }],
    ['an id that is not an integer', { ...appointment, id: '120003' }],
  ])('refuses %s: a fault, not money moved on a guess', (_what, raw) => {
    expect(() => readChanneling({ success: true, session, appointments: [raw] })).toThrow(
      /Unexpected channeling reply/,
    );
  });

  it('refuses a session closed otherwise, and an answer without appointments', () => {
    expect(() => readChanneling({ session: { ...session, closed_as: 'done' }, appointments: [] })).toThrow(/closed_as/);
    expect(() => readChanneling({ session })).toThrow(/no appointments/);
  });
});

describe('the channeling bodies', () => {
  it('a reason is required, trimmed, and nothing else is taken', () => {
    expect(parseReason({ reason: '  Doctor on leave ' })).toBe('Doctor on leave');
    expect(() => parseReason({})).toThrow('reason is required.');
    expect(() => parseReason({ reason: '   ' })).toThrow('reason is required.');
    expect(() => parseReason({ reason: 'x', extra: 1 })).toThrow();
    expect(() => parseReason([])).toThrow();
  });

  it('a settlement is paid in cash unless a method is given', () => {
    expect(parseSettlement(undefined)).toBe('Cash');
    expect(parseSettlement({})).toBe('Cash');
    expect(parseSettlement({ method: 'Online' })).toBe('Online');
    expect(() => parseSettlement({ method: 'Cheque' })).toThrow('method must be one of Cash, Card, Online.');
  });

  it('balances are asked for at most 1000 appointments, each an id', () => {
    expect(parseBalances({ appointment_ids: [3, 1, 3] })).toEqual([3, 1]);
    expect(() => parseBalances({})).toThrow('appointment_ids is required.');
    expect(() => parseBalances({ appointment_ids: [0] })).toThrow();
    expect(() => parseBalances({ appointment_ids: Array.from({ length: 1001 }, (_, i) => i + 1) })).toThrow();
  });

  it('a settlement is read as JSON unless format=pdf', () => {
    expect(parseFormat(undefined)).toBe('json');
    expect(parseFormat({ format: 'pdf' })).toBe('pdf');
    expect(() => parseFormat({ format: 'xml' })).toThrow();
  });
});

describe('paymentStatusOf: an appointment’s money in a word', () => {
  it.each([
    [0, 0, 'Unpaid'],
    [50_000, 50_000, 'Partly paid'],
    [150_000, 150_000, 'Paid'],
    [150_000, 20_000, 'Paid'],
    [150_000, 0, 'Refunded'],
  ])('paid %p, holding %p, of 1500: %p', (paid, held, status) => {
    expect(paymentStatusOf(150_000, paid, held)).toBe(status);
  });
});
