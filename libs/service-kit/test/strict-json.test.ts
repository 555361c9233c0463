import { parseStrictJson } from '../src/domain/strict-json';

const parse = (text: string, maxDepth = 3) => parseStrictJson(Buffer.from(text), maxDepth);

describe('parseStrictJson', () => {
  it('takes plain JSON, a leading byte-order mark included', () => {
    expect(parse('{"a":[1,{"b":null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
    expect(parse('\ufeff{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('refuses what is not JSON', () => {
    expect(parse('{"a":')).toEqual({ ok: false, problem: 'invalid' });
    expect(parse("{'a':1}")).toEqual({ ok: false, problem: 'invalid' });
  });

  it('refuses prototype-poisoning keys, at any depth', () => {
    expect(parse('{"__proto__":{"x":1}}')).toEqual({ ok: false, problem: 'poisoned' });
    expect(parse('{"a":{"constructor":{"prototype":{"x":1}}}}')).toEqual({ ok: false, problem: 'poisoned' });
  });

  it('refuses nesting deeper than asked, and takes exactly that depth', () => {
    expect(parse('[[[1]]]')).toEqual({ ok: true, value: [[[1]]] });
    expect(parse('[[[[1]]]]')).toEqual({ ok: false, problem: 'too deep' });
  });
});
