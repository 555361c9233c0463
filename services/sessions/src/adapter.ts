/** The NATS side of sessions: one handler per subject. */
import { SessionsSubjects } from '@clinic/contracts';
import type { Handler } from '@clinic/service-kit';
import type { SessionOperations } from './sessions';

export function sessionsHandlers(sessions: SessionOperations): Record<string, Handler> {
  return {
    [SessionsSubjects.list]: (req) => sessions.list(req),
    [SessionsSubjects.get]: (req) => sessions.get(req),
    [SessionsSubjects.create]: (req, ctx) => sessions.create(req, ctx),
    [SessionsSubjects.update]: (req, ctx) => sessions.update(req, ctx),
    [SessionsSubjects.delete]: (req, ctx) => sessions.delete(req, ctx),
    [SessionsSubjects.preview]: (req) => sessions.preview(req),
    [SessionsSubjects.autoCreate]: (req, ctx) => sessions.autoCreate(req, ctx),
  };
}
