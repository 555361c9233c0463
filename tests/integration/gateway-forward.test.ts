/**
 * The gateway's forward over a real NATS server, to stub services: what a
 * service receives for a route (the envelope and the headers), and that its
 * answer goes out as it came (status, body, ETag), as docs/api.md states.
 */
import { BillingSubjects, CatalogueSubjects } from '@clinic/contracts';
import { ask, fileGateway, replyWith, respondRaw } from './gateway-harness';

const t = fileGateway('gateway-forward');
const token = t.token('admin', 42);

describe('what the service receives', () => {
  it('a path parameter as text, the query, and the body as it came, on the route subject', async () => {
    await ask(t.app, 'GET', '/hospital_charges/0007', { token });
    await ask(t.app, 'GET', '/hospital_charges?store_id=1&search=cbc&search=x', { token });
    // 1e20 is sent as written: re-encoded, it would grow to 100000000000000000000.
    await ask(t.app, 'POST', '/hospital_charges', { token, body: '{"charge_name":"CBC","amount":1e20}' });
    expect(t.catalogue.received.map(({ subject, data }) => [subject, data])).toEqual([
      [CatalogueSubjects.get, '{"params":{"charge_id":"0007"}}'],
      [CatalogueSubjects.list, '{"query":{"store_id":"1","search":["cbc","x"]}}'],
      [CatalogueSubjects.create, '{"body":{"charge_name":"CBC","amount":1e20}}'],
    ]);
  });

  it("the caller's token, the correlation id, a deadline, and the Idempotency-Key and If-Match given", async () => {
    const answer = await ask(t.app, 'POST', '/lab_bills', {
      token,
      body: {},
      headers: { 'idempotency-key': 'retry-1', 'x-correlation-id': 'corr-forward-1' },
    });
    await ask(t.app, 'PUT', '/hospital_charges/7', { token, body: {}, headers: { 'if-match': '"v1"' } });
    expect(answer.headers['x-correlation-id']).toBe('corr-forward-1');
    const [bill] = t.billing.received;
    expect(bill?.subject).toBe(BillingSubjects.create);
    expect(bill?.headers).toMatchObject({
      authorization: `Bearer ${token}`,
      'x-correlation-id': 'corr-forward-1',
      'idempotency-key': 'retry-1',
    });
    expect(bill?.headers['x-deadline']).toMatch(/^\d+$/);
    expect(bill?.headers).not.toHaveProperty('if-match');
    expect(t.catalogue.received[0]?.headers).toMatchObject({ 'if-match': '"v1"' });
    expect(t.catalogue.received[0]?.headers).not.toHaveProperty('idempotency-key');
  });
});

describe('what the caller gets', () => {
  it("the service's status and body, byte for byte, as JSON", async () => {
    t.catalogue.answer = (msg) =>
      replyWith(msg, { status: 201, body: { success: true, message: 'Charge created successfully.', charge_id: 5 } });
    const created = await ask(t.app, 'POST', '/hospital_charges', { token, body: {} });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(created.body).toBe('{"success":true,"message":"Charge created successfully.","charge_id":5}');
  });

  it('a failure envelope as the service wrote it: its status, error and code', async () => {
    const notFound = { success: false, error: 'Charge not found.', code: 'CHARGE_NOT_FOUND' };
    t.catalogue.answer = (msg) => replyWith(msg, { status: 404, body: notFound });
    const res = await ask(t.app, 'GET', '/hospital_charges/9', { token });
    expect(res.status).toBe(404);
    expect(res.json).toEqual(notFound);
    const unchanged = { success: false, error: 'No changes were made.', code: 'CHARGE_UNCHANGED' };
    t.catalogue.answer = (msg) => replyWith(msg, { status: 200, body: unchanged });
    const put = await ask(t.app, 'PUT', '/hospital_charges/9', { token, body: {} });
    expect([put.status, put.json]).toEqual([200, unchanged]);
  });

  it('the ETag of a read, and 304 with no body for an If-None-Match that still holds', async () => {
    const charge = { success: true, charge: { id: 7 } };
    t.catalogue.answer = (msg) => replyWith(msg, { status: 200, etag: '"abc"', body: charge });
    const read = await ask(t.app, 'GET', '/hospital_charges/7', { token });
    expect([read.status, read.headers.etag, read.json]).toEqual([200, '"abc"', charge]);
    const same = await ask(t.app, 'GET', '/hospital_charges/7', { token, headers: { 'if-none-match': '"abc"' } });
    expect([same.status, same.body, same.headers.etag]).toEqual([304, '', '"abc"']);
    const changed = await ask(t.app, 'GET', '/hospital_charges/7', { token, headers: { 'if-none-match': '"old"' } });
    expect([changed.status, changed.json]).toEqual([200, charge]);
    // A failure is never a 304, whatever its tag.
    t.catalogue.answer = (msg) => replyWith(msg, { status: 404, etag: '"abc"', body: { success: false } });
    const gone = await ask(t.app, 'GET', '/hospital_charges/7', { token, headers: { 'if-none-match': '"abc"' } });
    expect(gone.status).toBe(404);
  });

  it('a reply the service wrote in another key order, parsed and answered the same', async () => {
    t.catalogue.answer = (msg) => respondRaw(msg, '{"body":{"success":true,"charges":[]},"status":200}');
    const res = await ask(t.app, 'GET', '/hospital_charges?store_id=1', { token });
    expect([res.status, res.json]).toEqual([200, { success: true, charges: [] }]);
  });

  it("a receipt's bytes as a PDF, and its failure as JSON", async () => {
    const pdf = Buffer.from('%PDF-1.7 receipt');
    t.billing.answer = (msg) =>
      replyWith(msg, {
        status: 200,
        body: {
          success: true,
          content_type: 'application/pdf',
          filename: 'bill-12.pdf',
          data_base64: pdf.toString('base64'),
        },
      });
    const receipt = await ask(t.app, 'GET', '/lab_bills/12/receipt', { token });
    expect(receipt.status).toBe(200);
    expect(receipt.headers['content-type']).toBe('application/pdf');
    expect(receipt.headers['content-disposition']).toBe('inline; filename="bill-12.pdf"');
    expect(receipt.raw.equals(pdf)).toBe(true);
    const notFound = { success: false, error: 'Bill not found.', code: 'BILL_NOT_FOUND' };
    t.billing.answer = (msg) => replyWith(msg, { status: 404, body: notFound });
    const missing = await ask(t.app, 'GET', '/lab_bills/13/receipt', { token });
    expect([missing.status, missing.headers['content-type'], missing.json]).toEqual([
      404,
      'application/json; charset=utf-8',
      notFound,
    ]);
  });
});
