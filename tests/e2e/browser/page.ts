/**
 * The browser test's page (bundled by esbuild with the typed client): creates
 * a bill with the token it is given, reads it back and shows its number; a
 * request the browser refuses (CORS) shows as the failure it is. Every call
 * carries what OpenTelemetry's fetch instrumentation and common HTTP libraries
 * add: a sampled `traceparent` (its trace id shown) and `X-Requested-With`.
 */
import { createClinicClient } from '@clinic/client';

const params = new URLSearchParams(location.search);
const store = Number(params.get('store'));
const charge = Number(params.get('charge'));
const api = createClinicClient({ baseUrl: params.get('api') ?? '', token: params.get('token') ?? undefined });

function show(id: 'bill-number' | 'bill-id' | 'etag' | 'trace-id' | 'failure', text: string): void {
  const element = document.getElementById(id);
  if (element) element.textContent = text;
}

const hex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
const traceId = hex(16);
api.use({
  onRequest({ request }) {
    // W3C trace context of a sampled trace, a new span per call.
    request.headers.set('traceparent', `00-${traceId}-${hex(8)}-01`);
    request.headers.set('X-Requested-With', 'XMLHttpRequest');
    return request;
  },
});

/** A failure the API answered: its status, its code and its text. */
function refused(response: Response, error: { code: string; error: string } | undefined): void {
  show('failure', `${response.status} ${error?.code}: ${error?.error}`);
}

async function run(): Promise<void> {
  show('trace-id', traceId);
  const created = await api.POST('/lab_bills', {
    params: { header: { 'Idempotency-Key': `browser-${params.get('key')}` } },
    body: {
      patient_name: 'Nimal Fernando',
      patient_contact: '0771234567',
      bill_date: '2095-06-01',
      payment_method: 'Card',
      store_id: store,
      items: [{ charge_id: charge, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    },
  });
  if (!created.data) return refused(created.response, created.error);
  const read = await api.GET('/lab_bills/{bill_id}', { params: { path: { bill_id: created.data.bill_id } } });
  if (!read.data) return refused(read.response, read.error);
  show('bill-id', String(read.data.bill.id));
  show('etag', read.response.headers.get('etag') ?? '');
  show('bill-number', read.data.bill.bill_number);
}

run().catch((err: unknown) => show('failure', `request failed: ${String(err)}`));
