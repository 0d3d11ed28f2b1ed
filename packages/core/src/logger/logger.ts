import { AuthConfigError } from "../errors/errors.ts";

/** Structured fields of a log line: never a secret, a code, a token or a key (callers pass described errors). */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/**
 * A pino-style logger: each method takes the fields first, then the message. pino, bunyan-style wrappers and
 * `console`-backed objects fit. Every line Latchkey writes goes through the one given to `createAuth({ logger })`.
 *
 * @example
 * import pino from "pino";
 * const auth = createAuth({ secret, database, baseUrl, logger: pino({ name: "latchkey" }) });
 */
export interface Logger {
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
}

const LEVELS = ["debug", "info", "warn", "error"] as const;

/**
 * The default logger: one console line per call, `[latchkey] <message>`, followed by `: <error>` when the fields
 * carry a described error (`{ error }`). Other fields are for structured loggers; the message already says them.
 *
 * @example
 * consoleLogger().error({ error: "connection refused" }, "unexpected error"); // [latchkey] unexpected error: connection refused
 */
export function consoleLogger(): Logger {
  const line = (fields: LogFields, message: string) =>
    typeof fields.error === "string" ? `[latchkey] ${message}: ${fields.error}` : `[latchkey] ${message}`;
  return {
    debug: (fields, message) => console.debug(line(fields, message)),
    info: (fields, message) => console.log(line(fields, message)),
    warn: (fields, message) => console.warn(line(fields, message)),
    error: (fields, message) => console.error(line(fields, message)),
  };
}

/**
 * Checks `createAuth({ logger })`: an object with `debug`, `info`, `warn` and `error` functions.
 *
 * @example
 * resolveLogger(undefined); // the console logger
 */
export function resolveLogger(logger: Logger | undefined): Logger {
  if (logger === undefined) return consoleLogger();
  if (logger === null || typeof logger !== "object")
    throw new AuthConfigError("logger", "must be a logger with debug, info, warn and error methods (pino fits)");
  for (const level of LEVELS)
    if (typeof logger[level] !== "function") throw new AuthConfigError("logger", `has no ${level}() method`);
  return logger;
}
