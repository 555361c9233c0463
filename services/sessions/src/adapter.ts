/** The NATS side of sessions: one handler per subject. */
import { SessionsSubjects } from '@clinic/contracts';
import { type Handler, subjectHandlers } from '@clinic/service-kit';
import type { AutoCreation } from './auto-creation';
import type { SessionOperations } from './sessions';

export function sessionsHandlers(sessions: SessionOperations, autoCreation: AutoCreation): Record<string, Handler> {
  return {
    ...subjectHandlers(SessionsSubjects, sessions, ['list', 'get', 'create', 'update', 'delete']),
    ...subjectHandlers(SessionsSubjects, autoCreation, ['preview', 'autoCreate']),
  };
}
