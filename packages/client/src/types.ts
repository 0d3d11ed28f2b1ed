// The types every part of the client shares: operations, their inputs and outputs, results and errors.
import type { components, operations, OPERATIONS } from "./generated/api.ts";

export type Schemas = components["schemas"];
export type User = Schemas["User"];
export type Session = Schemas["Session"];
export type ApiKey = Schemas["ApiKey"];
/** One row of `listSessions()`: a device the user is signed in on (`current` for this one). */
export type SessionListItem = Schemas["SessionListItem"];
/** `getApiKeyUsage`: one entry per UTC day, oldest first. */
export type ApiKeyUsage = Schemas["ApiKeyUsage"];
/** Every code a Latchkey error body carries. */
export type ErrorCode = Schemas["Error"]["code"];
/**
 * `NETWORK_ERROR`: the request never got an answer (offline, DNS, CORS refused, aborted). `PASSKEY_CANCELLED`: the
 * browser's passkey prompt was cancelled, timed out or is not available (`passkey.register()`, `passkey.signIn()`).
 */
export type ClientErrorCode = ErrorCode | "NETWORK_ERROR" | "PASSKEY_CANCELLED";

/** A failed call: the server's `{code, message, details?}` plus the HTTP status (0 for network errors). */
export interface LatchkeyError {
  code: ClientErrorCode;
  message: string;
  status: number;
  details?: unknown;
}

export type OperationId = keyof typeof OPERATIONS;
type Kind<K extends OperationId> = (typeof OPERATIONS)[K]["input"];
type JsonBody<Op> = Op extends { requestBody: { content: { "application/json": infer B } } }
  ? B
  : Op extends { requestBody?: { content: { "application/json": infer B } } }
    ? B
    : never;
type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? Exclude<Q, undefined> : never;
/** The path parameters of an operation (`{ id }` of `/passkey/{id}`); nothing for operations without. */
type PathOf<Op> = Op extends { parameters: { path: infer P } }
  ? [Exclude<P, undefined>] extends [never]
    ? unknown
    : Exclude<P, undefined>
  : unknown;

/** The request body (or query) an operation takes, from the server's schemas. */
export type Input<K extends OperationId> =
  Kind<K> extends "body"
    ? JsonBody<operations[K]> & PathOf<operations[K]>
    : Kind<K> extends "query"
      ? QueryOf<operations[K]> & PathOf<operations[K]>
      : Kind<K> extends "path"
        ? PathOf<operations[K]>
        : undefined;
/** The 200 answer of an operation, from the server's schemas. */
export type Output<K extends OperationId> = operations[K]["responses"][200]["content"]["application/json"];

/** Every call resolves (never rejects) to data or a typed error. */
export type Result<T> =
  | { data: T; error: null; response: Response }
  | { data: null; error: LatchkeyError; response: Response | null };

export interface CallOptions {
  /** Extra headers for this call. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** One method per operation: body or query first (optional when every field is), then call options. */
export type OperationMethod<K extends OperationId> =
  Kind<K> extends "none"
    ? (options?: CallOptions) => Promise<Result<Output<K>>>
    : Record<never, never> extends Input<K>
      ? (input?: Input<K>, options?: CallOptions) => Promise<Result<Output<K>>>
      : (input: Input<K>, options?: CallOptions) => Promise<Result<Output<K>>>;

export type OperationMethods = { [K in OperationId]: OperationMethod<K> };

/** Any operation by its `operationId`: what `LatchkeyClient.call` is. */
export type CallOperation = <K extends OperationId>(
  operationId: K,
  input?: Input<K>,
  options?: CallOptions,
) => Promise<Result<Output<K>>>;
