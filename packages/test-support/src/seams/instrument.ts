import { AsyncLocalStorage } from "node:async_hooks";
import type { FullStore, FullStorePorts } from "@latchkey/core";

/** The ports a store call can go to. */
export type PortName =
  | "users"
  | "sessions"
  | "accounts"
  | "verifications"
  | "counters"
  | "apiKeys"
  | "jwks"
  | "audit"
  | "twoFactor"
  | "socialAccounts"
  | "passkeys"
  | "organizations";

const PORTS: readonly PortName[] = [
  "users",
  "sessions",
  "accounts",
  "verifications",
  "counters",
  "apiKeys",
  "jwks",
  "audit",
  "twoFactor",
  "socialAccounts",
  "passkeys",
  "organizations",
];

/** Every port method that changes the store; everything else (find*, list*, peek) only reads. */
export const WRITE_METHODS: Readonly<Record<PortName, readonly string[]>> = {
  users: ["create", "update", "delete"],
  sessions: ["create", "touch", "delete", "deleteByUser", "deleteImpersonatedBy", "deleteExpired"],
  accounts: ["create", "upsertPassword", "setPasswordIfAbsent", "deleteAllExcept"],
  verifications: ["issue", "consume", "recordFailedAttempt", "deleteByIdentifier", "deleteExpired"],
  counters: ["hit", "delete", "rename"],
  apiKeys: [
    "create",
    "update",
    "reroll",
    "deleteExpiredRerolls",
    "touchLastUsed",
    "delete",
    "deleteExpired",
    "consumeUse",
  ],
  jwks: ["insert", "retireOthers", "deleteRetiredBefore"],
  audit: ["append"],
  twoFactor: ["savePending", "acceptStep", "useRecoveryCode", "replaceRecoveryCodes", "distrustDevices", "delete"],
  socialAccounts: ["link", "updateTokens", "unlink"],
  passkeys: ["insert", "rename", "recordUse", "delete", "deleteAllByUser"],
  organizations: [
    "create",
    "update",
    "delete",
    "addMember",
    "updateMemberRole",
    "removeMember",
    "createInvitation",
    "renewInvitation",
    "acceptInvitation",
    "settleInvitation",
    "setActive",
  ],
};

/** One port call as the wrappers see it. */
export interface PortCall {
  port: PortName;
  method: string;
  args: readonly unknown[];
  write: boolean;
  /** Inside a `transaction` body. */
  inTransaction: boolean;
  /** The flow that made the call (see `runAsFlow`), or null for the test's own calls. */
  flow: string | null;
}

/** `users.findByEmail`, for traces. */
export const callLabel = (c: Pick<PortCall, "port" | "method">) => `${c.port}.${c.method}`;

/**
 * What a wrapper does around each call. `call` runs the real port method; `transaction` runs the real
 * transaction (its body's calls go through `call` too, with `inTransaction` set).
 */
export interface StoreHooks {
  call(c: PortCall, run: () => Promise<unknown>): Promise<unknown>;
  transaction?(flow: string | null, run: () => Promise<unknown>): Promise<unknown>;
}

interface FlowContext {
  flow: string | null;
  inTransaction: boolean;
}

const context = new AsyncLocalStorage<FlowContext>();

/**
 * Runs `body` as the flow `name`: every store call it makes (and the async work it starts) is tagged with the
 * name, which is how the scheduler tells two concurrent flows apart.
 *
 * @example
 * await runAsFlow("sign-in", () => t.request("POST", "/sign-in/email", { body }));
 */
export function runAsFlow<T>(name: string, body: () => Promise<T>): Promise<T> {
  return context.run({ flow: name, inTransaction: false }, body);
}

/** The flow the current async context belongs to, or null. */
export function currentFlow(): string | null {
  return context.getStore()?.flow ?? null;
}

/**
 * A store whose every port call (and every transaction) goes through `hooks`. The wrapped store is a `FullStore`,
 * so an auth built over it is unaware of the wrapper.
 */
export function instrumentStore(inner: FullStore, hooks: StoreHooks): FullStore {
  const wrapPorts = (ports: FullStorePorts, inTransaction: boolean): FullStorePorts => {
    const out = {} as Record<PortName, unknown>;
    for (const port of PORTS) {
      const target = ports[port] as unknown as Record<string, unknown> | undefined;
      if (!target) continue;
      // A proxy rather than a copy: some stores (the HTTP suites' lazy database stores) are proxies themselves,
      // with no own keys to copy.
      const wrapped = new Proxy(target, {
        get(_, method) {
          const fn = target[method as string];
          if (typeof method !== "string" || typeof fn !== "function") return fn;
          const write = WRITE_METHODS[port].includes(method);
          return (...args: unknown[]) => {
            const ctx = context.getStore();
            const c: PortCall = { port, method, args, write, inTransaction, flow: ctx?.flow ?? null };
            return hooks.call(c, () => Promise.resolve(fn.apply(target, args)));
          };
        },
      });
      out[port] = wrapped;
    }
    return out as unknown as FullStorePorts;
  };
  const ports = wrapPorts(inner, false);
  return {
    ...ports,
    kind: inner.kind,
    transaction<T>(body: (tx: FullStorePorts) => Promise<T>): Promise<T> {
      const ctx = context.getStore();
      const flow = ctx?.flow ?? null;
      const run = () =>
        inner.transaction((tx) =>
          context.run({ flow, inTransaction: true }, () => body(wrapPorts(tx, true))),
        ) as Promise<unknown>;
      return (hooks.transaction ? hooks.transaction(flow, run) : run()) as Promise<T>;
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
