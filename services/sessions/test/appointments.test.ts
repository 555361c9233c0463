import fc from 'fast-check';
import {
  addMinutes,
  cancelWaiting,
  checkMove,
  estimatedTime,
  feeSplit,
  nextNumber,
  openCount,
  paymentOf,
  type AppointmentDoc,
  type SessionForBooking,
} from '../src/domain/appointments';

const TODAY = '2091-06-01';

function appointment(no: number, status: AppointmentDoc['status'] = 'booked'): AppointmentDoc {
  return {
    no,
    status,
    patient_name: `Patient ${no}`,
    patient_contact: '0770000000',
    patient_nic: null,
    patient_id: null,
    fee_level: 'local',
    source: 'counter',
    doctor_fee_cents: 150_000,
    hospital_fee_cents: 50_000,
    booked_by: { sub: 1, role: 'receptionist' },
    booked_at: new Date(0),
    cancel_reason: null,
    cancelled_at: null,
  };
}

const session = (overrides: Partial<SessionForBooking> = {}): SessionForBooking => ({
  status: 'active',
  session_date: TODAY,
  start_time: '18:30',
  max_patients: 40,
  appointments: [],
  ...overrides,
});

/** Books `count` counter patients in turn, as the compare-and-set writes do, and answers the numbers given. */
function bookInTurn(s: SessionForBooking, count: number): { numbers: number[]; refused: number } {
  const numbers: number[] = [];
  let refused = 0;
  for (let i = 0; i < count; i++) {
    try {
      const no = nextNumber(s, 'counter', TODAY, 0);
      s.appointments = [...(s.appointments ?? []), appointment(no)];
      numbers.push(no);
    } catch {
      refused++;
    }
  }
  return { numbers, refused };
}

describe('numbers', () => {
  it('gives 1 to max_patients once each, in order, then refuses every other booking', () => {
    const { numbers, refused } = bookInTurn(session(), 100);
    expect(numbers).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(refused).toBe(60);
  });

  it('never gives a number twice, never past the cap, whatever cancellations and caps come between', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant('book'), fc.constant('cancel'), fc.nat(50)), { maxLength: 200 }),
        fc.integer({ min: 1, max: 30 }),
        (steps, cap) => {
          const s = session({ max_patients: cap });
          for (const step of steps) {
            if (step === 'book') bookInTurn(s, 1);
            else if (step === 'cancel') {
              const open = s.appointments!.find((a) => a.status === 'booked');
              if (open) open.status = 'cancelled';
            } else s.max_patients = Math.max(1, step);
            const numbers = s.appointments!.map((a) => a.no);
            expect(new Set(numbers).size).toBe(numbers.length);
            // Numbers only grow: a cancelled number is never given again.
            expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
          }
          const s2 = session({ max_patients: cap, appointments: s.appointments });
          bookInTurn(s2, 100);
          expect(openCount(s2.appointments)).toBeLessThanOrEqual(Math.max(cap, openCount(s.appointments)));
        },
      ),
    );
  });

  it('keeps the reserved numbers for agents and the rest for the counter, within the cap', () => {
    const s = session({ max_patients: 10, reserved_numbers: 3 });
    const counter = bookInTurn(s, 20);
    expect(counter.numbers).toEqual([4, 5, 6, 7, 8, 9, 10]);
    const agents: number[] = [];
    for (let i = 0; i < 5; i++) {
      try {
        const no = nextNumber(s, 'agent', TODAY, 0);
        s.appointments!.push({ ...appointment(no), source: 'agent' });
        agents.push(no);
      } catch (err) {
        expect((err as Error).message).toBe('Session has no number left for agents.');
      }
    }
    expect(agents).toEqual([1, 2, 3]);
    expect(openCount(s.appointments)).toBe(10);
  });

  it('counts appointments other systems publish against the cap', () => {
    expect(() => nextNumber(session({ max_patients: 2 }), 'counter', TODAY, 2)).toThrow('Session is full.');
    expect(nextNumber(session({ max_patients: 3 }), 'counter', TODAY, 2)).toBe(1);
  });

  it('refuses a closed session, a past one, and an uncapped one past the appointments a session holds', () => {
    expect(() => nextNumber(session({ status: 'cancelled' }), 'counter', TODAY, 0)).toThrow('Session is closed.');
    expect(() => nextNumber(session({ status: 'completed' }), 'counter', TODAY, 0)).toThrow('Session is closed.');
    expect(() => nextNumber(session({ session_date: '2091-05-31' }), 'counter', TODAY, 0)).toThrow(
      'Session date has passed.',
    );
    const many = Array.from({ length: 1000 }, (_, i) => appointment(i + 1, 'cancelled'));
    expect(() => nextNumber(session({ max_patients: null, appointments: many }), 'counter', TODAY, 0)).toThrow(
      'A session holds at most 1000 appointments.',
    );
  });
});

describe('estimated times', () => {
  it('gives number n the start plus (n - 1) slots, from the doctor arrival when later', () => {
    expect(estimatedTime({ start_time: '18:30' }, 1, 10)).toBe('18:30');
    expect(estimatedTime({ start_time: '18:30' }, 7, 10)).toBe('19:30');
    expect(estimatedTime({ start_time: '18:30', doctor_arrived_at: '18:50' }, 7, 5)).toBe('19:20');
    expect(estimatedTime({ start_time: '18:30', doctor_arrived_at: '18:10' }, 2, 5)).toBe('18:35');
    expect(addMinutes('23:50', 30)).toBe('23:59');
  });
});

describe('fees and money', () => {
  it("splits the fee into the doctor's and the branch's of the level, refusing a level not offered", () => {
    expect(feeSplit(150_000, { local: 50_000, foreign: 150_000 }, 'foreign')).toEqual({
      doctor_fee_cents: 150_000,
      hospital_fee_cents: 150_000,
    });
    expect(feeSplit(150_000, undefined, 'local')).toEqual({ doctor_fee_cents: 150_000, hospital_fee_cents: 0 });
    expect(() => feeSplit(150_000, { local: 50_000 }, 'staff')).toThrow(
      'fee_level staff is not offered at this branch.',
    );
  });

  it('derives what is due, what is to give back and the payment status', () => {
    const a = appointment(1);
    expect(paymentOf(a, { paid_cents: 0, refunded_cents: 0 })).toMatchObject({ status: 'Unpaid', due_cents: 200_000 });
    expect(paymentOf(a, { paid_cents: 50_000, refunded_cents: 0 })).toMatchObject({
      status: 'Partly paid',
      due_cents: 150_000,
    });
    expect(paymentOf(a, { paid_cents: 200_000, refunded_cents: 0 })).toMatchObject({ status: 'Paid', due_cents: 0 });
    expect(paymentOf({ ...a, status: 'cancelled' }, { paid_cents: 200_000, refunded_cents: 50_000 })).toMatchObject({
      refund_due_cents: 150_000,
      due_cents: 0,
    });
    expect(paymentOf(a, { paid_cents: 200_000, refunded_cents: 200_000 })).toMatchObject({ status: 'Refunded' });
  });
});

describe('moves', () => {
  it('lets an appointment move booked -> arrived -> consulted, or absent, and nothing back from consulted or cancelled', () => {
    expect(() => checkMove('booked', 'arrived')).not.toThrow();
    expect(() => checkMove('arrived', 'consulted')).not.toThrow();
    expect(() => checkMove('booked', 'absent')).not.toThrow();
    expect(() => checkMove('absent', 'arrived')).not.toThrow();
    expect(() => checkMove('booked', 'consulted')).toThrow('An appointment booked cannot become consulted.');
    expect(() => checkMove('consulted', 'absent')).toThrow('An appointment consulted cannot become absent.');
    expect(() => checkMove('cancelled', 'arrived')).toThrow('Appointment is cancelled.');
  });

  it('cancels only the appointments still waiting when a session closes', () => {
    const list = [appointment(1, 'consulted'), appointment(2, 'arrived'), appointment(3), appointment(4, 'absent')];
    const { set, cancelled } = cancelWaiting({ appointments: list }, 'Session cancelled.');
    expect(cancelled.map((a) => a.no)).toEqual([2, 3]);
    expect(set.appointments.map((a) => a.status)).toEqual(['consulted', 'cancelled', 'cancelled', 'absent']);
    expect(set.open_count).toBe(2);
  });
});
