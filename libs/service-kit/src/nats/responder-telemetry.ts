/** What the NATS responder (responder.ts) reports about each request: metrics and its span. */
import { observeHandled } from '../process/metrics';
import { noteReplyStatus } from '../process/tracing';

export { traceLogFields, withHandlerSpan } from '../process/tracing';

export function requestAnswered(subject: string, status: number, durationMs: number): void {
  observeHandled(subject, status, durationMs);
  noteReplyStatus(status);
}
