import type { ServiceError } from '@clinic/service-kit';
import { parseLedgerExportQuery } from '../src/domain/ledger-export-query';

const refusal = (query: Record<string, string>) => {
  try {
    parseLedgerExportQuery(query);
  } catch (err) {
    return { status: (err as ServiceError).status, error: (err as ServiceError).message };
  }
  return null;
};

describe('a ledger export’s query', () => {
  it('takes a day or a range, the format, and on NATS the cursor and as_of', () => {
    expect(parseLedgerExportQuery({ store_id: '3', date: '2093-04-11', format: 'csv' })).toEqual({
      store_id: 3,
      from: '2093-04-11',
      to: '2093-04-11',
      format: 'csv',
      cursor: null,
      asOf: null,
    });
    const paged = parseLedgerExportQuery({
      store_id: '3',
      from: '2093-04-01',
      to: '2093-04-30',
      format: 'xlsx',
      cursor: '2093-04-02.0b9e6c3e-5f0a-4a9c-9a62-0c8f4d1e2a3b',
      as_of: '2093-04-30T10:00:00.000Z',
    });
    expect(paged.cursor).toEqual({ day: '2093-04-02', after: '0b9e6c3e-5f0a-4a9c-9a62-0c8f4d1e2a3b' });
    expect(paged.asOf).toEqual(new Date('2093-04-30T10:00:00.000Z'));
  });

  it('refuses what it cannot read, in order: branch, range, format, cursor', () => {
    expect(refusal({ date: '2093-04-11', format: 'csv' })).toEqual({ status: 400, error: 'store_id is required.' });
    expect(refusal({ store_id: '1', from: '2093-04-11', format: 'csv' })).toEqual({
      status: 400,
      error: 'to is required.',
    });
    expect(refusal({ store_id: '1', date: '2093-04-11' })).toEqual({ status: 400, error: 'format is required.' });
    expect(refusal({ store_id: '1', date: '2093-04-11', format: 'pdf' })?.status).toBe(400);
    expect(refusal({ store_id: '1', date: '2093-04-11', format: 'csv', cursor: 'x' })).toEqual({
      status: 400,
      error: 'cursor must be the next of an earlier page.',
    });
  });
});
