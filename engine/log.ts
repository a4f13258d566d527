import pino from 'pino';

/** The service's structured log: JSON lines on stderr (pino), one object per event. */
export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
  /** One access line per answered request (fields chosen by the caller: never a key or a header's value). */
  access(fields: Record<string, unknown>): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

function serialize(extra: unknown): unknown {
  if (extra instanceof Error) return { name: extra.name, message: extra.message, stack: extra.stack, cause: serialize(extra.cause) };
  return extra;
}

/** Creates a logger that drops messages below `level`; lines go to `fd` (stderr by default). */
export function createLogger(level: (typeof LEVELS)[number], fd = 2): Logger {
  const log = pino({
    level: LEVELS.includes(level) ? level : 'info',
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  }, pino.destination({ dest: fd, sync: true }));
  const emit = (lvl: 'debug' | 'info' | 'warn' | 'error') => (msg: string, extra?: unknown) => {
    if (extra === undefined) log[lvl](msg);
    else log[lvl]({ extra: serialize(extra) }, msg);
  };
  return {
    debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'),
    access: (fields) => log.info(fields, 'request'),
  };
}
