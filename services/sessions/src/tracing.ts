// Imported first by main.ts: OpenTelemetry must hook the database driver before it is loaded.
import { databaseInstrumentations } from '@clinic/service-kit/storage/tracing';
import { startTracing } from '@clinic/service-kit/tracing';

startTracing('sessions', { instrumentations: databaseInstrumentations });
