import { describe, expect, expectTypeOf, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { createAuthCore } from "./auth-core.ts";
import { AuthConfigError } from "../errors/errors.ts";
import { API_KEY_PLUGIN_ID, apiKeys } from "../api-key/plugin.ts";
import { AUDIT_LOG_PLUGIN_ID, auditLog } from "../audit-log/plugin.ts";
import { emailOtp } from "../email-otp/plugin.ts";
import type { ApiKeyService } from "../api-key/api-key.ts";
import type { Store } from "../ports/store.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";

const base = { secret: "s".repeat(40), baseUrl: "https://app.example" };

function withoutApiKeys(): Store {
  const { apiKeys: _gone, ...rest } = memoryStore();
  return { ...rest, kind: "no-keys" };
}

function configError(build: () => unknown): AuthConfigError {
  try {
    build();
  } catch (error) {
    if (error instanceof AuthConfigError) return error;
    throw error;
  }
  throw new Error("expected an AuthConfigError");
}

describe("plugins in createAuthCore", () => {
  it("refuses a plugin whose port the store lacks, naming the plugin, the port and the store", () => {
    const error = configError(() =>
      createAuthCore({ ...base, database: withoutApiKeys(), plugins: [emailOtp(), apiKeys()] }),
    );
    expect(error.message).toBe(
      'plugins[1] ("api-key") needs a store with the apiKeys port; the "no-keys" store has none',
    );
    // The same store serves the plugins that need nothing it lacks.
    const core = createAuthCore({ ...base, database: withoutApiKeys(), plugins: [emailOtp(), auditLog()] });
    expect(core.plugins.ids).toEqual(["email-otp", "audit-log"]);
  });

  it("hands init exactly the ports in `requires`, and refuses a plugin without `requires`", () => {
    const seen: string[][] = [];
    type Probe = InstalledPlugin<null, { probe(): string }, null>;
    const id = "probe" as PluginId<"probe", Probe>;
    const probe: AuthPlugin<"probe", Probe, "audit"> = {
      id,
      requires: ["audit"],
      init: (_ctx, ports) => {
        seen.push(Object.keys(ports));
        return { service: null, api: { probe: () => "ok" }, options: null };
      },
    };
    const core = createAuthCore({ ...base, database: memoryStore(), plugins: [probe] });
    expect(seen).toEqual([["audit"]]);
    expect(core.api.probe()).toBe("ok");
    expect(core.plugins.get(id)?.api.probe()).toBe("ok");
    const legacy = { id: "legacy", init: () => ({ service: null, api: {}, options: null }) };
    expect(
      configError(() => createAuthCore({ ...base, database: memoryStore(), plugins: [legacy as never] })).message,
    ).toContain("has no `requires` list");
  });

  it("looks installed plugins up by typed id; absent ones are null", () => {
    const core = createAuthCore({ ...base, database: memoryStore(), plugins: [apiKeys({ header: "x-key" })] });
    const installed = core.plugins.get(API_KEY_PLUGIN_ID);
    const service: ApiKeyService | undefined = installed?.service;
    expectTypeOf(service).toEqualTypeOf<ApiKeyService | undefined>();
    expect(installed?.options.header).toBe("x-key");
    expect(core.plugins.has("api-key")).toBe(true);
    expect(core.plugins.get(AUDIT_LOG_PLUGIN_ID)).toBeNull();
    expectTypeOf(core.api).toHaveProperty("createApiKey");
    expectTypeOf(core.api).not.toHaveProperty("listAuditEvents");
    expect(
      configError(() => createAuthCore({ ...base, database: memoryStore(), plugins: [apiKeys(), apiKeys()] })).message,
    ).toContain('installs "api-key" twice');
  });
});
