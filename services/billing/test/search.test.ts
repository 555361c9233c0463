import { parseListQuery } from '../src/domain/filters';
import { foldCase, searchCondition, searchTextOf } from '../src/storage/search';

describe('bill search text', () => {
  it('folds case one character at a time, the same on every server', () => {
    expect(foldCase('ÉLAN Perera ΣΑΣ')).toBe('élan perera σασ'); // no final-sigma rule: the whole word is σ
    expect(
      searchTextOf({
        patient_name: 'Nimal',
        patient_contact: '077',
        bill_number: 'LB-20900101-0001',
        patient_nic: null,
      }),
    ).toBe('nimal\u001f077\u001flb-20900101-0001\u001f');
  });

  it('looks for the folded term as a literal in search_text', () => {
    expect(searchCondition('LB-2090 (x)')).toEqual({ search_text: { $regex: 'lb\\-2090 \\(x\\)' } });
  });

  it('refuses a term holding a control character (the separator among them), so that a term never spans two fields', () => {
    for (const term of ['a\u001fb', '\u0000', 'x\u007f']) {
      expect(() => parseListQuery({ store_id: '1', search: term })).toThrow(
        'search must not contain control characters.',
      );
    }
    expect(parseListQuery({ store_id: '1', search: ' a\tb ' }).filter.search).toBe('a\tb');
  });
});
