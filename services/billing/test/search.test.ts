import { foldCase, searchCondition, searchTextOf } from '../src/storage/search';

describe('bill search text', () => {
  it('folds case one character at a time, the same on every server', () => {
    expect(foldCase('ÉLAN Perera ΣΑΣ')).toBe('élan perera σασ'); // no final-sigma rule: the whole word is σ
    expect(searchTextOf({ patient_name: 'Nimal', patient_contact: '077', bill_number: 'LB-20900101-0001', patient_nic: null })).toBe(
      'nimal\u001f077\u001flb-20900101-0001\u001f',
    );
  });

  it('looks for the folded term as a literal in search_text', () => {
    expect(searchCondition('LB-2090 (x)')).toEqual({ search_text: { $regex: 'lb\\-2090 \\(x\\)' } });
  });

  it('looks in each field when the term holds the separator, which would span two fields', () => {
    const condition = searchCondition('a\u001fb') as { $or: Array<Record<string, unknown>> };
    expect(condition.$or.map((c) => Object.keys(c)[0])).toEqual(['patient_name', 'patient_contact', 'bill_number', 'patient_nic']);
    expect(condition.$or[0]).toEqual({ patient_name: { $regex: 'a\u001fb', $options: 'i' } });
  });
});
