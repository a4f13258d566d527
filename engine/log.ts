/** A minimal structured logger writing JSON lines to stderr. */
export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

function serialize(extra: unknown): unknown {
  if (extra instanceof Error) return { name: extra.name, message: extra.message, stack: extra.stack, cause: serialize(extra.cause) };
  return extra;
}

/** Creates a logger that drops messages below `level`. */
export function createLogger(level: (typeof LEVELS)[number]): Logger {
  const min = LEVELS.indexOf(level);
  const emit = (lvl: (typeof LEVELS)[number]) => (msg: string, extra?: unknown) => {
    if (LEVELS.indexOf(lvl) < min) return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...(extra === undefined ? {} : { extra: serialize(extra) }) })}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
