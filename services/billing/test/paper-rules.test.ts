import { formatCreditNoteNumber } from '@clinic/contracts';
import { copyMark, printId } from '../src/domain/copies';
import { cancellationNote, refundNote, type GivenBackEntry } from '../src/domain/credit-notes';
import { netOfDay } from '../src/domain/day-net';
import { letterheadOf } from '../src/domain/letterhead';

const at = new Date('2093-04-11T13:00:00Z');
const by = { sub: 7, role: 'cashier' };
const entry = (id: string, kind: GivenBackEntry['kind'], method: GivenBackEntry['method'], amount: number) => ({
  id,
  kind,
  method,
  amount_cents: amount,
  reason: kind === 'payment' ? null : 'Test not done',
  item_id: null,
  day: '2093-04-11',
  at,
  by,
});

describe('copies of a paper', () => {
  it('prints the original unmarked and every later copy as DUPLICATE n', () => {
    expect([1, 2, 3].map(copyMark)).toEqual([null, 'DUPLICATE 1', 'DUPLICATE 2']);
  });

  it('gives each copy of each paper its own id, so that two prints cannot take one copy', () => {
    expect(printId('receipt', '12', 2)).toBe('print:receipt:12:2');
    expect(printId('refund_slip', 'CN-20930411-0001', 1)).not.toBe(printId('receipt', 'CN-20930411-0001', 1));
  });
});

describe('credit notes', () => {
  const ledger = [
    entry('p1', 'payment', 'Cash', 5000),
    entry('r1', 'refund', 'Card', 1200),
    entry('v1', 'reversal', 'Cash', 300),
  ];

  it('has one of a refund, and none of a payment, a reversal or an unknown id', () => {
    expect(refundNote(ledger, 'r1')).toMatchObject({
      kind: 'refund',
      key: 'refund:r1',
      day: '2093-04-11',
      reason: 'Test not done',
      lines: [{ method: 'Card', amount: 1200 }],
    });
    for (const id of ['p1', 'v1', 'nope']) expect(refundNote(ledger, id)).toBeNull();
  });

  it('sums a cancellation’s refunds per method, and is a note of nothing when the bill held nothing', () => {
    const cancelled = [...ledger, entry('c1', 'refund', 'Cash', 3000), entry('c2', 'refund', 'Cash', 500)];
    const cancellation = { billId: 12, at, day: '2093-04-12', by, reason: 'twice', entryIds: ['c1', 'c2'] };
    expect(cancellationNote(cancelled, cancellation)).toMatchObject({
      key: 'cancellation:12',
      day: '2093-04-11',
      lines: [{ method: 'Cash', amount: 3500 }],
      reason: 'twice',
    });
    expect(cancellationNote([], { ...cancellation, entryIds: [] })).toMatchObject({ day: '2093-04-12', lines: [] });
  });

  it('is numbered per day like bills', () => {
    expect(formatCreditNoteNumber('2093-04-11', 7)).toBe('CN-20930411-0007');
  });
});

describe('a letterhead', () => {
  it('is the branch’s name alone without one, or for an unknown branch', () => {
    expect(letterheadOf({ name: 'Kandy' }, 2)).toEqual({ title: 'Kandy', lines: [], logo: null });
    expect(letterheadOf(null, 9)).toEqual({ title: 'Branch 9', lines: [], logo: null });
  });

  it('names the legal issuer first, the branch under it, then address, phone and registration', () => {
    const head = letterheadOf(
      {
        name: 'Colombo Central',
        letterhead: {
          legal_name: 'Lanka Labs (Pvt) Ltd',
          address: '12 Galle Road',
          phone: '+94 11 234 5678',
          registration_no: 'PV 1234',
        },
      },
      1,
    );
    expect(head).toEqual({
      title: 'Lanka Labs (Pvt) Ltd',
      lines: ['Colombo Central', '12 Galle Road', 'Tel: +94 11 234 5678', 'Reg. No: PV 1234'],
      logo: null,
    });
  });

  it('keeps a PNG or JPEG logo and drops anything else', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]).toString('base64');
    const base = { legal_name: 'L', address: 'A', phone: '', registration_no: '' };
    const logoOf = (data_base64: string) =>
      letterheadOf({ name: 'L', letterhead: { ...base, logo: { media_type: 'image/png', data_base64 } } }, 1).logo;
    expect(logoOf(png)?.mediaType).toBe('image/png');
    expect(logoOf(Buffer.from('GIF89a').toString('base64'))).toBeNull();
  });
});

describe('a day’s money net of what went back', () => {
  it('takes payments less refunds and reversals; doctors’ payouts are neither', () => {
    const rows = [
      { kind: 'payment', amount_cents: 10_000 },
      { kind: 'refund', amount_cents: 3900 },
      { kind: 'reversal', amount_cents: 100 },
      { kind: 'payout', amount_cents: 2000 },
    ] as const;
    expect(netOfDay(rows)).toEqual({ collected: 10_000, givenBack: 4000, net: 6000 });
  });
});
