// One pino logger factory. Logs go to stderr: stdout belongs to CLI output that scripts read.
import { type Logger, pino } from 'pino';

export type { Logger };

export interface LoggerOptions {
  name: string;
  level?: string;
  /** 1 = stdout, 2 = stderr (default), or a file path. */
  destination?: 1 | 2 | string;
}

/** Fields that must never be written to a log line, wherever they appear. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'apiKey',
  'key',
  'token',
  'secret',
  '*.apiKey',
  '*.token',
  '*.secret',
];

export function createLogger(opts: LoggerOptions): Logger {
  return pino(
    {
      name: opts.name,
      level: opts.level ?? process.env['LOG_LEVEL'] ?? 'info',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pino.destination({ dest: opts.destination ?? 2, sync: true }),
  );
}
