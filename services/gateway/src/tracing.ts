// Imported first by main.ts: the OpenTelemetry SDK starts before anything it traces is loaded. The gateway's
// request span is made in telemetry.ts, without an instrumentation.
import { startTracing } from '@clinic/service-kit/tracing';

startTracing('gateway', { activeContext: false, decidesRoots: true });
