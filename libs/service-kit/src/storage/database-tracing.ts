/**
 * The MongoDB driver's OpenTelemetry instrumentation, for a service's
 * `startTracing(name, { instrumentations: databaseInstrumentations })` ('@clinic/service-kit/storage/tracing').
 * Apart from process/tracing.ts so that the gateway, which owns no data, never
 * reaches for it; loaded only when tracing is on.
 */
export function databaseInstrumentations(): unknown[] {
  const { MongoDBInstrumentation } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  return [new MongoDBInstrumentation()];
}
