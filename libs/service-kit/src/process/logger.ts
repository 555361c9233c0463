import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout; every line of a request carries its `correlation_id`. */
export function createLogger(service: string, level = process.env.LOG_LEVEL || 'info'): Logger {
  return pino({
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
