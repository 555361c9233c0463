/**
 * Hostile input across the whole API, generated from the route table: NoSQL
 * operators in every body field and query parameter, prototype-poisoning
 * keys in every body, regular-expression bombs in every search. Each must get
 * a 4xx in the envelope, store nothing and reveal nothing of another branch.
 */
import { HTTP_ROUTES, type HttpRoute } from '@clinic/contracts';
import { failureOf } from './harness';
import { t, ids, OPERATORS, validBody, pathOf, snapshot, bodyRoutes } from './security-stack';

describe('NoSQL operators in every body field', () => {
  const cases = bodyRoutes.flatMap((route) => {
    const properties = Object.keys((route.body!.properties ?? {}) as Record<string, unknown>).filter(
      (p) => p !== 'notes' || route.url !== '/auto_create_sessions',
    );
    const itemFields =
      route.url === '/lab_bills' && route.method === 'POST'
        ? ['charge_id', 'charge_name', 'unit_price', 'qty'].map((f) => `items.${f}`)
        : [];
    return [...properties, ...itemFields].map(
      (field) => [`${route.method} ${route.url} ${field}`, route, field] as const,
    );
  });

  it.each(cases)('%s', async (_name, route, field) => {
    const before = await snapshot();
    for (const operator of OPERATORS) {
      const body = structuredClone(validBody(route)) as Record<string, any>;
      if (field.startsWith('items.')) body.items[0][field.slice(6)] = operator;
      else body[field] = operator;
      const res = await t.request(route.method, pathOf(route), body);
      expect({ field, operator, status: res.status >= 400 && res.status < 500 }).toEqual({
        field,
        operator,
        status: true,
      });
      expect(res.body.success).toBe(false);
      expect(typeof res.body.error).toBe('string');
    }
    expect(await snapshot()).toBe(before);
  });
});

describe('prototype-poisoning keys in every body', () => {
  it.each(bodyRoutes.map((r) => [`${r.method} ${r.url}`, r] as const))('%s', async (_name, route) => {
    const before = await snapshot();
    const base = JSON.stringify(validBody(route)).slice(1, -1);
    // Refused by the gateway's parser, anywhere in the body. (A plain `constructor` key is a field the route
    // does not take, ignored like any other: see the catalogue tests.)
    for (const poison of [
      '"__proto__":{"isAdmin":true}',
      '"constructor":{"prototype":{"isAdmin":true}}',
      '"x":{"__proto__":{"isAdmin":true}}',
    ]) {
      const res = await t.request(route.method, pathOf(route), undefined, {
        rawBody: `{${base},${poison}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(failureOf('Request body must not contain __proto__ or constructor.prototype keys.'));
    }
    // Nested inside an item too.
    if (route.url === '/lab_bills' && route.method === 'POST') {
      const res = await t.request('POST', '/lab_bills', undefined, {
        rawBody: JSON.stringify(validBody(route)).replace('"qty":1', '"qty":1,"__proto__":{"x":1}'),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
    }
    expect(await snapshot()).toBe(before);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });
});

describe('NoSQL operators in every query parameter', () => {
  const queryCases = HTTP_ROUTES.filter((r) => r.querystring).flatMap((route) =>
    Object.keys((route.querystring!.properties ?? {}) as Record<string, unknown>).map(
      (param) => [`${route.method} ${route.url} ?${param}`, route, param] as const,
    ),
  );

  it.each(queryCases)('%s', async (_name, route, param) => {
    const required = ((route.querystring!.required ?? []) as string[]).filter((p) => p !== param).map((p) => `${p}=1`);
    const attempts = [
      `${param}[$ne]=1`,
      `${param}=${encodeURIComponent('{"$ne":1}')}`,
      `${param}[$gt]=`,
      `${param}=${encodeURIComponent('{"$where":"sleep(1000)"}')}`,
    ];
    for (const attempt of attempts) {
      const res = await t.get(`${route.url}?${[...required, attempt].join('&')}`);
      expect(res.status).toBeLessThan(500);
      expect(typeof res.body.success).toBe('boolean');
      // Never the other branch's data, whatever was asked.
      expect(JSON.stringify(res.body)).not.toContain('Other branch only');
    }
  });
});

describe('regular expressions in search', () => {
  it.each(['(a+)+$', '(.*a){20}', '([a-z]+)*$', '.*', '\\', '[', '(?=', '$where'])(
    'treats %p literally and quickly',
    async (pattern) => {
      const started = Date.now();
      for (const path of [`/hospital_charges?store_id=1&search=`, `/lab_bills?store_id=1&search=`]) {
        const res = await t.get(`${path}${encodeURIComponent(pattern + 'a'.repeat(30) + '!')}`);
        expect(res.status).toBe(200);
        expect(res.body.success).toBe(true);
        expect(res.body.count).toBe(0);
      }
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );
});

describe('bodies', () => {
  it('answers a 10 MB body with 413 on every body route, storing nothing', async () => {
    const before = await snapshot();
    const huge = JSON.stringify({ notes: 'x'.repeat(10 * 1024 * 1024) });
    for (const route of bodyRoutes) {
      const res = await t.request(route.method, pathOf(route), undefined, {
        rawBody: huge,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ success: false, error: 'Request body is too large.', code: 'BODY_TOO_LARGE' });
    }
    expect(await snapshot()).toBe(before);
  });
});

describe('deeply nested bodies', () => {
  it('answers 400 on every body route, storing nothing', async () => {
    const before = await snapshot();
    const deep = `{"notes":${'['.repeat(5000)}${']'.repeat(5000)}}`; // 10 KB; recursive code would overflow on it
    for (const route of bodyRoutes) {
      const res = await t.request(route.method, pathOf(route), undefined, {
        rawBody: deep,
        headers: { 'content-type': 'application/json' },
      });
      expect({ route: route.url, status: res.status, body: res.body }).toEqual({
        route: route.url,
        status: 400,
        body: { success: false, error: 'Request body is nested more than 32 levels deep.', code: 'BODY_TOO_DEEP' },
      });
    }
    expect(await snapshot()).toBe(before);
  });
});

describe('roles', () => {
  it('checks the token and the role before reading the body', async () => {
    const badJson = { rawBody: '{"charge_name":', headers: { 'content-type': 'application/json' } };
    const anonymous = await t.request('POST', '/hospital_charges', undefined, { ...badJson, token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.success).toBe(false);
    const doctor = await t.request('POST', '/hospital_charges', undefined, { ...badJson, role: 'doctor' });
    expect(doctor.status).toBe(403);
    expect(doctor.body).toEqual(failureOf('You do not have permission to perform this action.'));
  });

  it('refuses every charge write to a role without access, changing nothing', async () => {
    const before = await snapshot();
    const body = validBody(HTTP_ROUTES.find((r) => r.url === '/hospital_charges' && r.method === 'POST')!);
    for (const [method, path] of [
      ['POST', '/hospital_charges'],
      ['PUT', `/hospital_charges/${ids.charge}`],
      ['DELETE', `/hospital_charges/${ids.charge}`],
    ] as const) {
      const res = await t.request(method, path, method === 'DELETE' ? undefined : body, { role: 'doctor' });
      expect({ method, status: res.status, body: res.body }).toEqual({
        method,
        status: 403,
        body: { success: false, error: 'You do not have permission to perform this action.', code: 'FORBIDDEN' },
      });
    }
    expect(await snapshot()).toBe(before);
  });

  it('lets only admins cancel bills, and any role read sessions', async () => {
    for (const role of ['cashier', 'receptionist', 'doctor', 'patient']) {
      expect((await t.del(`/lab_bills/${ids.bill}`, { role })).status).toBe(403);
    }
    expect((await t.get(`/lab_bills/${ids.bill}`)).status).toBe(200);
    expect((await t.get(`/get_session/${ids.session}`, { role: 'doctor' })).status).toBe(200);
    for (const role of ['doctor', 'patient'])
      expect((await t.get('/hospital_charges?store_id=1', { role })).status).toBe(403);
  });
});

describe('access rules of every route', () => {
  const outsiders = (route: HttpRoute) =>
    route.access.kind === 'roles'
      ? ['admin', 'receptionist', 'cashier', 'doctor'].filter(
          (r) => !(route.access as { roles: readonly string[] }).roles.includes(r),
        )
      : [];

  it.each(HTTP_ROUTES.map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s: 401 without a token, 403 to a role outside its rule, before anything is read',
    async (_name, route) => {
      const before = await snapshot();
      const body = validBody(route);
      const anonymous = await t.request(route.method, pathOf(route), body, { token: null });
      expect({ status: anonymous.status, body: anonymous.body }).toEqual({
        status: 401,
        body: { success: false, error: 'Authentication required.', code: 'AUTHENTICATION_REQUIRED' },
      });
      for (const role of outsiders(route)) {
        const res = await t.request(route.method, pathOf(route), body, { role });
        expect({ role, status: res.status, body: res.body }).toEqual({
          role,
          status: 403,
          body: { success: false, error: 'You do not have permission to perform this action.', code: 'FORBIDDEN' },
        });
      }
      expect(await snapshot()).toBe(before);
    },
  );
});
