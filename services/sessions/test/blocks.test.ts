import { DayBlocks, leaveCovers } from '../src/domain/blocks';

const leave = (id: number, doctor_id: number, from_date: string, to_date: string) => ({
  id,
  doctor_id,
  from_date,
  to_date,
});
const holiday = (id: number, date: string, store_id: number | null, name: string) => ({ id, date, store_id, name });

describe('DayBlocks', () => {
  const blocks = new DayBlocks(
    [leave(1, 5, '2040-03-09', '2040-03-11'), leave(2, 5, '2040-03-20', '2040-03-20')],
    [
      holiday(1, '2040-03-15', null, 'National Day'),
      holiday(2, '2040-03-15', 2, 'Branch Day'),
      holiday(3, '2040-03-16', 2, 'Kandy only'),
    ],
    true,
  );

  it('counts leave days inclusively, for the doctor on leave only', () => {
    expect(
      ['2040-03-08', '2040-03-09', '2040-03-10', '2040-03-11', '2040-03-12', '2040-03-20'].map((d) =>
        blocks.onLeave(5, d),
      ),
    ).toEqual([false, true, true, true, false, true]);
    expect(blocks.onLeave(6, '2040-03-10')).toBe(false);
  });

  it("names a branch's own holiday before one of every branch, and ignores other branches' holidays", () => {
    expect(blocks.holiday(2, '2040-03-15')).toBe('Branch Day');
    expect(blocks.holiday(1, '2040-03-15')).toBe('National Day');
    expect(blocks.holiday(1, '2040-03-16')).toBeNull();
    expect(blocks.of(5, 2, '2040-03-16')).toEqual({ on_leave: false, holiday: 'Kandy only' });
    expect(blocks.blocks(5, 1, '2040-03-16')).toBe(false);
    expect(blocks.blocks(5, 1, '2040-03-10')).toBe(true);
  });

  it('spans each doctor’s leaves for the sessions query', () => {
    expect(blocks.leaveSpans()).toEqual([{ doctor_id: 5, from: '2040-03-09', to: '2040-03-20' }]);
    expect(blocks.holidayDates().sort()).toEqual(['2040-03-15', '2040-03-16']);
  });
});

describe('leaveCovers', () => {
  it("holds a session on the leave's days, of its doctor only", () => {
    const shortened = leave(1, 5, '2040-03-10', '2040-03-10');
    expect(['2040-03-09', '2040-03-10', '2040-03-11'].map((d) => leaveCovers(shortened, 5, d))).toEqual([
      false,
      true,
      false,
    ]);
    expect(leaveCovers(shortened, 6, '2040-03-10')).toBe(false);
  });
});
