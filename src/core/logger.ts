/**
 * A small leveled logger that writes one line per record to stderr (stdout belongs to
 * command output and to stdio MCP). Every line passes through the secret redactor.
 */
import { redactSecrets } from './redact.js';

/** How much weft writes to stderr: `debug` shows everything, `error` only failures. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(tag: string): Logger;
}

export interface LogRecord {
  level: LogLevel;
  tag: string | undefined;
  message: string;
  fields: Record<string, unknown> | undefined;
}

export type LogSink = (record: LogRecord) => void;

export function stderrSink(minimum: LogLevel): LogSink {
  return (record) => {
    if (RANK[record.level] < RANK[minimum]) return;
    const tag = record.tag ? `[${record.tag}] ` : '';
    const fields = record.fields && Object.keys(record.fields).length > 0 ? ` ${JSON.stringify(record.fields)}` : '';
    process.stderr.write(`weft ${record.level}: ${tag}${redactSecrets(record.message)}${redactSecrets(fields)}\n`);
  };
}

export function createLogger(sink: LogSink, tag?: string): Logger {
  const emit = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => sink({ level, tag, message, fields });
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (childTag) => createLogger(sink, tag ? `${tag}:${childTag}` : childTag),
  };
}

/** Collects records in memory; for tests and for commands that report warnings at the end. */
export function memorySink(): { sink: LogSink; records: LogRecord[] } {
  const records: LogRecord[] = [];
  return { sink: (record) => records.push(record), records };
}

export const silentLogger: Logger = createLogger(() => {});
