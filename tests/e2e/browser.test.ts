/**
 * A real browser (Debian's headless Chromium, driven by playwright-core) loads a
 * page from another origin that, with the typed client bundled by esbuild,
 * creates a bill with a token, reads it back and shows its number, sending a
 * sampled `traceparent` as OpenTelemetry's browser instrumentation does: the
 * trace is continued to billing's log line. The same page from an origin
 * CORS_ORIGINS does not list cannot: the browser refuses the preflight, and the
 * page shows the failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext } from 'playwright-core';
import { eventually, startTestStack, type TestStack } from './harness';
import { seedMainWithCbc } from './fixtures';
import { startOtlpReceiver, type OtlpReceiver } from './observability';
import { BillingSubjects } from '@clinic/contracts';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
/** Without the background-networking flags, Chromium's own connections are refused by a closed network. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Clinic front end</title></head>
<body>
  <p>Bill <span id="bill-number"></span> (id <span id="bill-id"></span>, ETag <span id="etag"></span>)</p>
  <p>Trace <span id="trace-id"></span></p>
  <p id="failure"></p>
  <script src="/app.js"></script>
</body>
</html>
`;

let t: TestStack;
let receiver: OtlpReceiver;
let browser: BrowserContext;
let userDataDir: string;
let chargeId: number;
const servers: Server[] = [];
/** The page's two origins: one CORS_ORIGINS lists, one it does not. */
let allowedOrigin: string;
let otherOrigin: string;

/** A web server on its own port (so its own origin) serving the page and the bundled script. */
async function pageServer(script: string): Promise<string> {
  const server = createServer((request, response) => {
    const [type, body] = request.url?.startsWith('/app.js')
      ? ['text/javascript; charset=utf-8', script]
      : ['text/html; charset=utf-8', PAGE];
    response.writeHead(200, { 'content-type': type }).end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it('types the page against the generated client: every request and answer it makes', () => {
  // esbuild only strips types; the compiler checks them, with the browser's library.
  const check = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(__dirname, 'browser')], {
    encoding: 'utf8',
  });
  expect(check.stdout).toBe('');
  expect(check.status).toBe(0);
}, 60_000);

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [join(__dirname, 'browser', 'page.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
  });
  const script = bundle.outputFiles[0]!.text;
  allowedOrigin = await pageServer(script);
  otherOrigin = await pageServer(script);
  receiver = await startOtlpReceiver();
  // Tracing on, sampling as in production: only the page's sampled traceparent makes its requests traced.
  t = await startTestStack({ env: { CORS_ORIGINS: allowedOrigin, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } });
  chargeId = await seedMainWithCbc(t);
  userDataDir = mkdtempSync(join(tmpdir(), 'clinic-chromium-'));
  // A fresh profile of its own (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const server of servers) server.close();
  await t?.stop();
  await receiver?.stop();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

/** Loads the page from `origin` and answers what it shows once it has shown a bill or a failure. */
async function runPage(origin: string, key: string) {
  const page = await browser.newPage();
  try {
    const query = new URLSearchParams({
      api: t.url,
      token: t.token('cashier', 7),
      store: '1',
      charge: String(chargeId),
      key,
    });
    await page.goto(`${origin}/?${query}`);
    const text = async (id: string) => (await page.textContent(`#${id}`)) ?? '';
    await page.waitForSelector('#bill-number:not(:empty), #failure:not(:empty)', { timeout: 20_000 });
    return {
      billNumber: await text('bill-number'),
      billId: await text('bill-id'),
      etag: await text('etag'),
      traceId: await text('trace-id'),
      failure: await text('failure'),
    };
  } finally {
    await page.close();
  }
}

const billsOfStore = async () => (await t.get('/lab_bills?store_id=1')).body.total as number;

describe('a web app in a real browser', () => {
  it('creates a bill from a listed origin, reads it back and shows its number', async () => {
    const shown = await runPage(allowedOrigin, 'listed');
    expect(shown.failure).toBe('');
    expect(shown.billNumber).toMatch(/^LB-20950601-\d{4}$/);
    // The bill the page shows is the one stored, and the page could read its ETag (exposed by CORS).
    const stored = await t.get(`/lab_bills/${shown.billId}`);
    expect(stored.status).toBe(200);
    expect(stored.body.bill).toMatchObject({ bill_number: shown.billNumber, store_id: 1, billed_by: 7 });
    expect(shown.etag).toBe(stored.headers.get('etag'));
    // The page's trace (its traceparent allowed by the preflight) reached billing: on the line of its bill's creation.
    expect(shown.traceId).toMatch(/^[0-9a-f]{32}$/);
    const created = await eventually(async () =>
      readFileSync(join(t.stack.logDir, 'billing-1.log'), 'utf8')
        .split('\n')
        .filter((line) => line.includes(shown.traceId))
        .map((line) => JSON.parse(line))
        .find((line) => line.msg === 'request handled' && line.subject === BillingSubjects.create),
    );
    expect(created).toMatchObject({ trace_id: shown.traceId, status: 201 });
  });

  it('cannot call the API from an origin CORS_ORIGINS does not list: the page shows the failure, nothing is stored', async () => {
    const before = await billsOfStore();
    const shown = await runPage(otherOrigin, 'unlisted');
    expect(shown.billNumber).toBe('');
    expect(shown.failure).toBe('request failed: TypeError: Failed to fetch');
    expect(await billsOfStore()).toBe(before);
  });
});
