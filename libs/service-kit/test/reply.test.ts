import { splitReply } from '../src/nats/nats-client';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

describe('splitReply', () => {
  it('takes the body bytes of a service reply as they are', () => {
    const body = { success: true, charges: [{ id: 1, charge_name: 'Ünïcode "quoted" }' }], count: 1 };
    const reply = splitReply(bytes(JSON.stringify({ status: 200, body })));
    expect(reply.status).toBe(200);
    expect(JSON.parse(text(reply.body))).toEqual(body);
  });

  it("takes a single record's ETag from before the body", () => {
    const body = { success: true, bill: { id: 3, notes: '"etag":"x"' } };
    const etag = '"b5Qw-_x"';
    const reply = splitReply(bytes(JSON.stringify({ status: 200, etag, body })));
    expect(reply.status).toBe(200);
    expect(reply.etag).toBe(etag);
    expect(JSON.parse(text(reply.body))).toEqual(body);
    expect(splitReply(bytes(`{"body":${JSON.stringify(body)},"etag":${JSON.stringify(etag)},"status":200}`))).toEqual({
      status: 200,
      etag,
      body: bytes(JSON.stringify(body)),
    });
  });

  it('parses anything written another way', () => {
    const reply = splitReply(bytes('{ "body": {"success":false,"error":"x"}, "status": 404 }'));
    expect(reply).toEqual({ status: 404, body: bytes('{"success":false,"error":"x"}') });
  });

  it('refuses a reply cut short or with a brace missing, instead of passing on half a body', () => {
    expect(() => splitReply(bytes('{"status":200,"body":{"a":1}'))).toThrow(SyntaxError);
    expect(() => splitReply(bytes('{"status":200,"body":{"a":{"b":1}}'))).toThrow(SyntaxError);
    expect(() => splitReply(bytes('{"status":200,"body":{"a":"}"}'))).toThrow(SyntaxError);
    expect(text(splitReply(bytes('{"status":200,"body":{"a":"\\"}{"}}')).body)).toBe('{"a":"\\"}{"}');
  });
});
