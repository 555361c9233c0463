/**
 * The records the branch-scope tests act on, per branch: a charge, a bill, a
 * session, and channeling's appointments and settlements, made once, and
 * fresh ones for a call that uses one up. `year` keeps a file's dates apart.
 */
import type { NatsConnection } from 'nats';
import type { HttpRoute } from '@clinic/contracts';
import { viaHttp, viaNats, type Answer, type Call, type Transport } from './branch-transport';
import { branch } from './fixtures';
import type { TestStack } from './harness';

/** The branch the scoped tokens hold, and the one they do not. */
export const OWN = 1;
export const OTHER = 2;
export type Branch = typeof OWN | typeof OTHER;

const doctor = (id: Branch) => ({
  id,
  name: `Dr. Branch ${id}`,
  reg_no: `SLMC-B${id}`,
  specialization: 'General',
  channeling_fee: 1500,
  status: 'Active',
  store_id: id,
  schedule: [{ day: 'Monday', session_no: 1, start_time: '08:00', end_time: '10:00', max_patients: 10 }],
});

export class BranchRecords {
  readonly charge = {} as Record<Branch, number>;
  readonly bill = {} as Record<Branch, number>;
  readonly session = {} as Record<Branch, number>;
  /** A session that takes the bookings of the calls (the other one's cap changes). */
  readonly bookings = {} as Record<Branch, number>;
  readonly appointment = {} as Record<Branch, number>;
  /** An appointment that took money: its ledger. */
  readonly paidAppointment = {} as Record<Branch, number>;
  /** A completed session whose doctor is paid. */
  readonly settled = {} as Record<Branch, number>;
  private serial = 0;
  private hospital!: NatsConnection;
  protected stack?: TestStack;

  protected constructor(private readonly year: number) {}

  /** The file's stack (in its tests and hooks). */
  get t(): TestStack {
    return this.stack!;
  }

  send(via: Transport, route: HttpRoute, call: Call, token: string): Promise<Answer> {
    return via === 'HTTP' ? viaHttp(this.t, route, call, token) : viaNats(this.hospital, route, call, token);
  }

  protected async prepare(): Promise<void> {
    this.hospital = await this.t.nats('hospital');
    await this.t.seed({
      stores: [branch(OWN, 'Colombo'), branch(OTHER, 'Kandy')],
      patients: [{ id: 1, name: 'Nimal' }],
      doctors: [doctor(OWN), doctor(OTHER)],
    });
    for (const b of [OWN, OTHER] as const) {
      this.charge[b] = await this.newCharge(b);
      this.bill[b] = await this.newBill(b);
      this.session[b] = await this.newSession(b);
      this.bookings[b] = await this.newSession(b);
      this.appointment[b] = await this.newAppointment(b);
      this.paidAppointment[b] = await this.newPaidAppointment(b);
      this.settled[b] = await this.newSettledSession(b);
    }
  }

  next(): number {
    return ++this.serial;
  }

  /** A POST as an admin token without the claim (every branch), which must succeed; the answer's `field`. */
  private async created(path: string, body: unknown, field: string): Promise<any> {
    const res = await this.t.post(path, body);
    if (res.status !== 201) throw new Error(`setup ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body[field];
  }

  newChargeBody(b: Branch) {
    return { charge_name: `Test ${this.next()}`, charge_type: 'Lab', amount: 100, store_id: b };
  }

  newBillBody(b: Branch) {
    return {
      patient_name: 'Nimal',
      patient_contact: '0771234567',
      bill_date: this.billDate,
      payment_method: 'Card',
      store_id: b,
      items: [{ charge_id: this.charge[b], charge_name: 'Test', unit_price: 100, qty: 1 }],
    };
  }

  newSessionBody(b: Branch) {
    const n = this.next();
    const date = new Date(Date.UTC(this.year, 0, 1 + n)).toISOString().slice(0, 10);
    return { doctor_id: b, session_date: date, session_no: 1, start_time: '09:00', end_time: '10:00' };
  }

  get billDate(): string {
    return `${this.year}-01-15`;
  }

  /** A month of its own for each auto-creation. */
  newMonth(): string {
    const n = this.next();
    return `${this.year + 1 + Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, '0')}`;
  }

  newCharge(b: Branch): Promise<number> {
    return this.created('/hospital_charges', this.newChargeBody(b), 'charge_id');
  }

  newBill(b: Branch): Promise<number> {
    return this.created('/lab_bills', this.newBillBody(b), 'bill_id');
  }

  /** A bill with its whole total still due. */
  newPendingBill(b: Branch): Promise<number> {
    return this.created('/lab_bills', { ...this.newBillBody(b), payment_status: 'Pending' }, 'bill_id');
  }

  /** A past day of its own for each close (a day in the future cannot be closed). */
  newPastDay(): string {
    return new Date(Date.UTC(2001, 0, this.next())).toISOString().slice(0, 10);
  }

  /** A past day of branch `b`, closed by an admin of every branch. */
  async closedDay(b: Branch): Promise<string> {
    const date = this.newPastDay();
    await this.created('/lab_bills/day_close', { store_id: b, date }, 'message');
    return date;
  }

  newSession(b: Branch): Promise<number> {
    return this.created('/add_session', this.newSessionBody(b), 'session_id');
  }

  newPatient() {
    return { patient_name: `Patient ${this.next()}`, patient_contact: '0771234567' };
  }

  /** A patient booked into the branch's session of bookings; the appointment's id. */
  async newAppointment(b: Branch): Promise<number> {
    return (await this.created(`/sessions/${this.bookings[b]}/appointments`, this.newPatient(), 'appointment')).id;
  }

  /** An appointment that took 100 by card. */
  async newPaidAppointment(b: Branch): Promise<number> {
    const id = await this.newAppointment(b);
    await this.created(`/appointments/${id}/payments`, { amount: 100, method: 'Card' }, 'payment');
    return id;
  }

  /** A session completed (nobody came) and settled. */
  async newSettledSession(b: Branch): Promise<number> {
    const id = await this.newSession(b);
    const completed = await this.t.post(`/sessions/${id}/complete`);
    if (completed.status !== 200)
      throw new Error(`setup: session ${id} not completed: ${JSON.stringify(completed.body)}`);
    await this.created(`/sessions/${id}/settlement`, {}, 'settlement');
    return id;
  }
}
