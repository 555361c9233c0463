import { cellForCsv, cellForExcel } from '../src/export-cells';

const text = { key: 'patient_name', type: 'text' } as const;
const money = { key: 'grand_total', type: 'money' } as const;

describe('export cells', () => {
  it.each(['=1+1', '-2+3', '+94 77 123 4567', '@SUM(A1)', '\tTab', '\rCR', '\n=1+1', '-', '+1-2'])(
    'neutralises text starting %j in CSV',
    (value) => {
      expect(cellForCsv(text, value)).toBe(`'${value}`);
    },
  );

  it('leaves other text, numbers and negative amounts as they are: a number is data, not a formula', () => {
    expect(cellForCsv(text, 'Nimal = 1')).toBe('Nimal = 1');
    // A phone number a spreadsheet reads as a number, not a formula: shown as written, without a guard.
    expect(cellForCsv(text, '+94712223344')).toBe('+94712223344');
    expect(cellForCsv(text, '-12.50')).toBe('-12.50');
    // A line break inside is the CSV writer's to quote; what follows it starts no cell.
    expect(cellForCsv(text, 'a\n=1+1')).toBe('a\n=1+1');
    expect(cellForCsv(money, -500)).toBe('-500.00');
    expect(cellForCsv({ key: 'discount_value', type: 'number' }, -2.5)).toBe('-2.5');
    expect(cellForCsv(text, null)).toBe('');
  });

  it('types Excel cells: text as strings (never evaluated), amounts as numbers, wall-clock dates', () => {
    expect(cellForExcel(text, '=1+1')).toBe('=1+1');
    expect(cellForExcel(money, 1234.5)).toBe(1234.5);
    expect(cellForExcel({ key: 'bill_date', type: 'date' }, '2091-05-01')).toEqual(new Date('2091-05-01T00:00:00Z'));
    expect(cellForExcel({ key: 'created_at', type: 'datetime' }, '2091-05-01 23:59:58')).toEqual(
      new Date('2091-05-01T23:59:58Z'),
    );
  });
});
