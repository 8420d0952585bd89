// Structured JSON logs for the worker; every line names the host it comes from.
import { pino, type Logger } from 'pino';

export function createWorkerLogger(level: string): Logger {
  return pino({ level, base: { component: 'worker', pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}
