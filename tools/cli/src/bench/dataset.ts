/**
 * The benchmark's data set at scale: a year of a busy clinic chain. Bills are
 * stored through billing's own storage layer in bulk (BillStorage's import: the
 * same documents, numbers, search text and per-day registry a create makes,
 * without events), reference data through the reference stream, sessions
 * through the API.
 */
import { MongoClient } from 'mongodb';
import type { NatsConnection } from 'nats';
import { parseSeedFile, seedReferenceData } from '@clinic/devstack';
import {
  ClinicClock,
  connectNats,
  createLogger,
  IdAllocator,
  ScopeVersions,
  machineTimeZone,
  Outbox,
  toCents,
  VersionedCache,
} from '@clinic/service-kit/internal';
import { computeTotals, type BillInput } from '@clinic/billing/dist/domain/rules';
import { BillStorage } from '@clinic/billing/dist/storage';
import { BILL_PAYLOADS } from '@clinic/billing/dist/events/bill-events';
import { api, type Target } from './target';

/** The branch the list, search and summary figures are measured in; the others share the other half. */
export const MEASURED_BRANCH = 2;
export const OTHER_BRANCHES = [3, 4, 5, 6, 7, 8, 9, 10, 11];
const FIRST = [
  'Nimal',
  'Kamal',
  'Sunil',
  'Ayesha',
  'Fathima',
  'Ruwan',
  'Chamari',
  'Dilshan',
  'Kasun',
  'Nadeesha',
  'Priyanka',
  'Tharindu',
  'Malini',
  'Anura',
];
const LAST = [
  'Fernando',
  'Perera',
  'Silva',
  'Jayawardena',
  'Bandara',
  'Wickramasinghe',
  'Dissanayake',
  'Gunawardena',
  'Herath',
  'Rajapaksa',
];
const METHODS = ['Cash', 'Card', 'Online'] as const;

/**
 * A deterministic pseudo-random sequence, so that every run loads the same
 * data (mulberry32, in 32-bit integer arithmetic). The linear congruential
 * generator before it multiplied past 2^53 in floating point and fell into
 * short cycles: the "year" it made put a branch's bills on about a third of
 * the dates, each date with one or two payment methods.
 */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items` (never empty here), chosen by `rnd` (in [0, 1)). */
function pick<T>(items: readonly T[], rnd: () => number): T {
  return items[Math.floor(rnd() * items.length)]!;
}

/** The 365 dates of the year before `today`. */
export function yearBefore(today: Date): string[] {
  return Array.from({ length: 365 }, (_, i) =>
    new Date(today.getTime() - (365 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

export interface Samples {
  /** The first 2,000 bills of the measured branch: ids, full numbers, full contacts. */
  ids: number[];
  numbers: string[];
  contacts: string[];
}

export class BillLoader {
  readonly samples: Samples = { ids: [], numbers: [], contacts: [] };
  loaded = 0;
  private readonly next = random(7);
  private charges = new Map<number, Array<{ id: number; name: string; amount: number }>>();
  private mongo?: MongoClient;
  private nc?: NatsConnection;
  private versions?: ScopeVersions;
  private storage?: BillStorage;

  constructor(
    private readonly target: Target,
    readonly dates: string[],
  ) {}

  /** Twenty charges per branch through the API, and billing's storage layer on the target's database. */
  async open(): Promise<void> {
    for (const branch of [MEASURED_BRANCH, ...OTHER_BRANCHES]) {
      const existing = (await api(this.target, 'GET', `/hospital_charges?store_id=${branch}&status=Active`)).charges;
      for (let i = existing.length; i < 20; i++) {
        await api(this.target, 'POST', '/hospital_charges', {
          store_id: branch,
          charge_name: `Test ${i + 1}`,
          charge_type: 'Lab',
          amount: 500 + i * 125.5,
        });
      }
      const charges = (await api(this.target, 'GET', `/hospital_charges?store_id=${branch}&status=Active`)).charges;
      this.charges.set(
        branch,
        charges.map((c: any) => ({ id: c.id, name: c.charge_name, amount: c.amount })),
      );
    }
    if (!this.target.mongoUrl || !this.target.nats)
      throw new Error('The bulk load needs MONGO_URL and NATS_URL (a stack of its own has both)');
    const log = createLogger('bench-load', 'warn');
    this.mongo = await MongoClient.connect(this.target.mongoUrl);
    this.nc = await connectNats(
      { url: this.target.nats.url, user: 'billing', password: this.target.nats.passwords.billing },
      { name: 'bench-load', log, waitForServer: false },
    );
    const db = this.mongo.db(process.env.BILLING_MONGO_DB ?? 'clinic_billing');
    // A writer only: each import stores its cache marks for the billing replicas.
    this.versions = new ScopeVersions(this.nc, 'billing', log);
    const deps = {
      db,
      ids: new IdAllocator(db),
      outbox: new Outbox(db, this.nc.jetstream(), log),
      cache: new VersionedCache(this.versions),
      clock: new ClinicClock(machineTimeZone()),
    };
    this.storage = new BillStorage(deps, log, BILL_PAYLOADS);
  }

  /** Adds bills until `total` are stored, half of them in the measured branch, spread over the year. */
  async loadTo(total: number): Promise<void> {
    const chunk = 20_000;
    while (this.loaded < total) {
      const count = Math.min(chunk, total - this.loaded);
      const bills = Array.from({ length: count }, (_, i) => this.bill(this.loaded + i));
      const stored = await this.storage!.newBills.import(
        bills.map((input) => ({
          input,
          totals: computeTotals(input.items, input.discount_type, input.discount_value),
        })),
      );
      for (const doc of stored) {
        if (doc.store_id !== MEASURED_BRANCH || this.samples.ids.length >= 2_000) continue;
        this.samples.ids.push(doc.id);
        this.samples.numbers.push(doc.bill_number);
        this.samples.contacts.push(doc.patient_contact);
      }
      this.loaded += count;
    }
  }

  /**
   * `count` Pending bills of one branch and date, each of one item at
   * `unitCents`: bills to pay (issue 25's payments at 64 connections). Answers their ids.
   */
  async pendingBills(count: number, store: number, date: string, unitCents: number): Promise<number[]> {
    const charge = this.charges.get(store)![0]!;
    const bills = Array.from({ length: count }, (_, n) => ({
      ...this.bill(n),
      store_id: store,
      bill_date: date,
      payment_status: 'Pending' as const,
      discount_value: 0,
      items: [{ charge_id: charge.id, charge_name: charge.name, unit_price_cents: unitCents, qty: 1 }],
    }));
    const stored = await this.storage!.newBills.import(
      bills.map((input) => ({ input, totals: computeTotals(input.items, input.discount_type, input.discount_value) })),
    );
    return stored.map((doc) => doc.id);
  }

  private bill(n: number): BillInput {
    const rnd = this.next;
    const store = n % 2 === 0 ? MEASURED_BRANCH : pick(OTHER_BRANCHES, rnd);
    const charges = this.charges.get(store)!;
    const method = pick(METHODS, rnd);
    const items = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
      const charge = pick(charges, rnd);
      return {
        charge_id: charge.id,
        charge_name: charge.name,
        unit_price_cents: toCents(charge.amount),
        qty: 1 + Math.floor(rnd() * 2),
      };
    });
    return {
      patient_name: `${pick(FIRST, rnd)} ${pick(LAST, rnd)}`,
      patient_contact: `07${String(Math.floor(rnd() * 1e8)).padStart(8, '0')}`,
      bill_date: pick(this.dates, rnd),
      payment_method: method,
      store_id: store,
      items,
      patient_id: rnd() < 0.5 ? 1 + Math.floor(rnd() * 100_000) : null,
      patient_nic: rnd() < 0.5 ? `${String(Math.floor(rnd() * 1e9)).padStart(9, '0')}V` : null,
      patient_age: 1 + Math.floor(rnd() * 90),
      billed_by: 1 + Math.floor(rnd() * 20),
      payment_status: rnd() < 0.8 ? 'Paid' : 'Pending',
      discount_type: rnd() < 0.5 ? 'flat' : 'pct',
      discount_value: Math.floor(rnd() * 10),
      received_cents: method === 'Cash' ? 1_000_000 : null,
      balance_cents: null,
      notes: null,
    };
  }

  async close(): Promise<void> {
    await this.nc?.close();
    await this.mongo?.close();
  }
}

/** Reference data: branches, users, 100,000 patients and 50 doctors with weekly schedules. */
export async function seedScaleReferences(target: Target): Promise<{ doctors: number; patients: number }> {
  const nc = await connectNats(
    { url: target.nats!.url, user: 'ops', password: target.nats!.passwords.ops },
    { name: 'bench-seed', log: createLogger('bench', 'warn'), waitForServer: false },
  );
  try {
    const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    const doctors = Array.from({ length: 50 }, (_, i) => ({
      id: 1000 + i,
      name: `Dr. Scale ${i + 1}`,
      reg_no: `S-${i + 1}`,
      specialization: 'General',
      channeling_fee: 1500,
      status: 'Active',
      store_id: MEASURED_BRANCH,
      schedule: days.flatMap((day) =>
        [1, 2].map((session_no) => ({
          day,
          session_no,
          start_time: session_no === 1 ? '08:00' : '16:00',
          end_time: session_no === 1 ? '12:00' : '20:00',
          max_patients: 30,
        })),
      ),
    }));
    const patients = Array.from({ length: Number(process.env.BENCH_PATIENTS ?? 100_000) }, (_, i) => ({
      id: i + 1,
      name: `Patient ${i + 1}`,
    }));
    const seed = {
      stores: [MEASURED_BRANCH, ...OTHER_BRANCHES].map((id) => ({ id, name: `Branch ${id}`, status: 'active' })),
      users: Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `Cashier ${i + 1}` })),
      doctors,
      patients,
    };
    await seedReferenceData(nc, parseSeedFile(seed), { timeoutMs: 30 * 60_000 });
    return { doctors: doctors.length, patients: patients.length };
  } finally {
    await nc.close();
  }
}
