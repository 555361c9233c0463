import { checkShareRefund, sharesOf, sharesOfEntries } from '../src/domain/fee-shares';
import type { LedgerEntryDoc } from '../src/domain/ledger-entry';

/** A fee of 1500: the doctor's 1000, the hospital's 500. */
const fees = { doctor: 100_000, hospital: 50_000 };

const paid = (amount_cents: number) => ({ kind: 'payment', amount_cents, item_id: null }) as LedgerEntryDoc;
const refunded = (amount_cents: number, item_id: number | null = null) =>
  ({ kind: 'refund', amount_cents, item_id }) as LedgerEntryDoc;
const share = (paid: number, refunded: number) => ({ paid, refunded });

describe('sharesOf: what the ledger holds of the doctor’s and the hospital’s shares', () => {
  it('nothing paid: nothing held', () => {
    expect(sharesOf(fees, [])).toEqual({ doctor: share(0, 0), hospital: share(0, 0) });
  });

  it('payments fill the doctor’s share first, then the hospital’s', () => {
    expect(sharesOf(fees, [paid(60_000)])).toEqual({ doctor: share(60_000, 0), hospital: share(0, 0) });
    expect(sharesOf(fees, [paid(60_000), paid(60_000)])).toEqual({
      doctor: share(100_000, 0),
      hospital: share(20_000, 0),
    });
    expect(sharesOf(fees, [paid(150_000)])).toEqual({ doctor: share(100_000, 0), hospital: share(50_000, 0) });
  });

  it('a refund of an item comes out of that share', () => {
    const ledger = [paid(150_000), refunded(100_000, 1), refunded(1, 2)];
    expect(sharesOf(fees, ledger)).toEqual({ doctor: share(100_000, 100_000), hospital: share(50_000, 1) });
  });

  it('a refund of no item comes out of the hospital’s share first, then the doctor’s', () => {
    expect(sharesOf(fees, [paid(150_000), refunded(30_000)]).hospital).toEqual(share(50_000, 30_000));
    expect(sharesOf(fees, [paid(150_000), refunded(70_000)])).toEqual({
      doctor: share(100_000, 20_000),
      hospital: share(50_000, 50_000),
    });
    // The hospital's share already given back by an item refund: the rest comes out of the doctor's.
    expect(sharesOf(fees, [paid(150_000), refunded(50_000, 2), refunded(10_000)]).doctor).toEqual(
      share(100_000, 10_000),
    );
    // Only the doctor's share paid: all of it.
    expect(sharesOf(fees, [paid(40_000), refunded(40_000)]).doctor).toEqual(share(40_000, 40_000));
  });

  it('a payment after a refund still fills what is left of the doctor’s share first', () => {
    expect(sharesOf(fees, [paid(80_000), refunded(30_000), paid(70_000)])).toEqual({
      doctor: share(100_000, 30_000),
      hospital: share(50_000, 0),
    });
  });

  it('a reversal empties the share filled last first', () => {
    const reversal = { kind: 'reversal', amount_cents: 70_000, item_id: null } as LedgerEntryDoc;
    expect(sharesOf(fees, [paid(150_000), reversal])).toEqual({
      doctor: share(80_000, 0),
      hospital: share(0, 0),
    });
  });

  it('each entry’s own part, as its drawer entry records it, and they add up to the amounts', () => {
    const ledger = [paid(60_000)];
    const entries = [paid(60_000), refunded(50_000), refunded(5_000, 1)];
    expect(sharesOfEntries(fees, ledger, entries)).toEqual([
      { doctor_cents: 40_000, hospital_cents: 20_000 },
      { doctor_cents: 30_000, hospital_cents: 20_000 },
      { doctor_cents: 5_000, hospital_cents: 0 },
    ]);
  });
});

describe('checkShareRefund: a share gives back at most what it holds', () => {
  it('refuses a refund of the hospital’s share when the patient paid only towards the doctor’s', () => {
    expect(() => checkShareRefund(fees, [paid(60_000)], refunded(1, 2))).toThrow(
      'amount must be at most what is left to refund of that item, 0.',
    );
    expect(() => checkShareRefund(fees, [paid(60_000)], refunded(60_001, 1))).toThrow(/600\.$|600\./);
    expect(() => checkShareRefund(fees, [paid(60_000)], refunded(60_000, 1))).not.toThrow();
    expect(() => checkShareRefund(fees, [paid(60_000)], refunded(60_000))).not.toThrow();
  });
});
