import { BILL_INDEXES, listDateCondition, listIndexFor } from '../src/storage/indexes';

describe('the date condition of a page of the list', () => {
  it('names one date as it is', () => {
    expect(listDateCondition({ date: '2096-03-01', from_date: '2096-01-01' })).toEqual({ bill_date: '2096-03-01' });
  });

  it('writes a short range as its dates, across a month end and a leap day', () => {
    expect(listDateCondition({ from_date: '2096-02-27', to_date: '2096-03-02' })).toEqual({
      bill_date: { $in: ['2096-02-27', '2096-02-28', '2096-02-29', '2096-03-01', '2096-03-02'] },
    });
    const range = { from_date: '2095-01-01', to_date: '2095-03-04' };
    expect(listIndexFor(range)).toBe(BILL_INDEXES.byDay);
    expect((listDateCondition(range).bill_date as { $in: string[] }).$in).toHaveLength(63);
  });

  it('keeps a long or open range as a range, read in list order', () => {
    const long = { from_date: '2095-01-01', to_date: '2095-03-05' };
    expect(listIndexFor(long)).toBe(BILL_INDEXES.list);
    expect(listDateCondition(long)).toEqual({ bill_date: { $gte: '2095-01-01', $lte: '2095-03-05' } });
    expect(listDateCondition({ from_date: '2095-01-01' })).toEqual({ bill_date: { $gte: '2095-01-01' } });
    expect(listDateCondition({})).toEqual({});
  });

  it('matches nothing for a range that ends before it starts, as the range would', () => {
    expect(listDateCondition({ from_date: '2095-01-02', to_date: '2095-01-01' })).toEqual({ bill_date: { $in: [] } });
  });
});
