/** The NATS side of sessions: one handler per subject. */
import { SessionsSubjects } from '@clinic/contracts';
import type { Handler } from '@clinic/service-kit';
import type { AutoCreation } from './auto-creation';
import type { SessionOperations } from './sessions';

export function sessionsHandlers(sessions: SessionOperations, autoCreation: AutoCreation): Record<string, Handler> {
  return {
    [SessionsSubjects.list]: (req, ctx) => sessions.list(req, ctx),
    [SessionsSubjects.get]: (req, ctx) => sessions.get(req, ctx),
    [SessionsSubjects.create]: (req, ctx) => sessions.create(req, ctx),
    [SessionsSubjects.update]: (req, ctx) => sessions.update(req, ctx),
    [SessionsSubjects.delete]: (req, ctx) => sessions.delete(req, ctx),
    [SessionsSubjects.preview]: (req, ctx) => autoCreation.preview(req, ctx),
    [SessionsSubjects.autoCreate]: (req, ctx) => autoCreation.autoCreate(req, ctx),
  };
}
