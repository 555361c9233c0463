// Imported first by main.ts: OpenTelemetry must hook the database driver before it is loaded.
import { startTracing } from '@clinic/service-kit/tracing';

startTracing('catalogue');
