// Structured JSON logs (pino). Every line carries the process's identity; child loggers add
// host, device, session, connection and request ids where they are known.
import { pino, type Logger } from 'pino';

export function createLogger(level: string, component: string): Logger {
  return pino({
    level,
    base: { component, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.secret', '*.token'], censor: '<redacted>' },
  });
}
