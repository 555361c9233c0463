/** What the NATS responder (responder.ts) reports about each request: metrics and its span. */
import { observeHandled } from './metrics';
import { noteReplyStatus } from './tracing';

export { traceLogFields, withHandlerSpan } from './tracing';

export function requestAnswered(subject: string, status: number, durationMs: number): void {
  observeHandled(subject, status, durationMs);
  noteReplyStatus(status);
}
