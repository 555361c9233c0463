import { DELETION_MARKER_SCHEMA, HTTP_ROUTES, REF_RECORD_SCHEMAS } from '@clinic/contracts';
import { compileSchema, schemaProblem } from '../src/domain/schema';

describe('contract schemas', () => {
  it.each(HTTP_ROUTES.map((r) => [`${r.method} ${r.url}`, r] as const))(
    'compiles every schema of %s',
    (_name, route) => {
      for (const schema of [route.body, route.querystring, ...Object.values(route.responses)]) {
        if (schema) expect(() => compileSchema(schema)).not.toThrow();
      }
    },
  );

  it('compiles the reference record schemas', () => {
    for (const schema of [...Object.values(REF_RECORD_SCHEMAS), DELETION_MARKER_SCHEMA])
      expect(() => compileSchema(schema)).not.toThrow();
  });

  it('checks calendar dates, not just their shape', () => {
    const schema = { type: 'object', properties: { d: { type: 'string', format: 'date' } } };
    expect(schemaProblem(schema, { d: '2084-02-29' })).toBeNull();
    expect(schemaProblem(schema, { d: '2082-02-29' })).toBe('d must be a valid date.');
  });
});
