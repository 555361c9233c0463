import { headers } from 'nats';
import { traceLogFields, tracingActive, tracingConfigured, withRequestSpan } from '../src/process/tracing';

it('traces only when an OTLP endpoint is configured, and not when the standard variables turn it off', () => {
  expect(tracingConfigured({})).toBe(false);
  expect(tracingConfigured({ OTEL_SERVICE_NAME: 'billing' })).toBe(false);
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(
    false,
  );
  expect(
    tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }),
  ).toBe(false);
});

it('does nothing while off: no headers, no log fields', async () => {
  expect(tracingActive()).toBe(false);
  const h = headers();
  expect(await withRequestSpan('billing.bill.create', h, async () => 'reply')).toBe('reply');
  expect([...h.keys()]).toEqual([]);
  expect(traceLogFields()).toEqual({});
});
