import { describe, expect, expectTypeOf, it } from "vitest";
import { AuthConfigError } from "../errors/errors.ts";
import type { AuthOptions } from "../auth/options.ts";
import type { BeforeSignIn } from "../hooks/hooks.ts";
import type { Duration } from "./duration.ts";
import { EACH } from "./closed-options.ts";
import { applySchema, defaulted, group, optional, required, shapeOf, type InputOf } from "./schema.ts";

const positive = (v: number, field: string) => {
  if (v < 1) throw new AuthConfigError(field, "must be positive");
};
const SCHEMA = {
  /** needed */
  name: required<string>(),
  size: defaulted<number>(3, { check: positive }),
  limit: defaulted<number | null>(10, { nullable: true }),
  note: optional<string>({
    check: (v, field) => {
      if (typeof v !== "string") throw new AuthConfigError(field, "must be a string");
    },
  }),
  inner: group({ on: defaulted<boolean>(false) }),
  rules: optional<Record<string, { max: number }>>({ each: { max: required<number>() } }),
  names: optional<Record<string, string>>({ names: ["a.txt", "b.txt"] }),
};

function error(run: () => unknown): AuthConfigError {
  try {
    run();
  } catch (e) {
    if (e instanceof AuthConfigError) return e;
    throw e;
  }
  throw new Error("no AuthConfigError");
}

describe("option schemas", () => {
  it("fill defaults (null is unset unless nullable), keep given values, fill groups", () => {
    expect(applySchema(SCHEMA, { name: "x" }, "g")).toEqual({
      name: "x",
      size: 3,
      limit: 10,
      note: undefined,
      inner: { on: false },
      rules: undefined,
      names: undefined,
    });
    const given = applySchema(SCHEMA, { name: "x", size: null as never, limit: null, inner: { on: true } }, "g");
    expect([given.size, given.limit, given.inner.on]).toEqual([3, null, true]);
  });

  it("check each value under its full name, the default too; an unset required option is an error", () => {
    expect(error(() => applySchema(SCHEMA, { name: "x", size: 0 }, "g")).message).toBe("g.size must be positive");
    expect(error(() => applySchema(SCHEMA, { name: "x", note: null as never }, "g")).field).toBe("g.note");
    expect(error(() => applySchema(SCHEMA, {} as never, "g")).message).toBe("g.name is required");
    const bad = { ...SCHEMA, size: defaulted<number>(0, { check: positive }) };
    expect(error(() => applySchema(bad, { name: "x" }, "g")).message).toBe("g.size must be positive");
    expect(error(() => applySchema(SCHEMA, 5 as never, "g")).message).toBe("g options must be an object");
  });

  it("closed keys at every depth, with the nearest name", () => {
    expect(error(() => applySchema(SCHEMA, { name: "x", sise: 1 } as never, "g")).message).toBe(
      "g.sise is not an option; did you mean g.size?",
    );
    expect(error(() => applySchema(SCHEMA, { name: "x", inner: { onn: true } } as never, "g")).field).toBe(
      "g.inner.onn",
    );
    expect(error(() => applySchema(SCHEMA, { name: "x", names: { "c.txt": "" } }, "g")).field).toBe('g.names["c.txt"]');
    expect(shapeOf(SCHEMA)).toEqual({
      name: true,
      size: true,
      limit: true,
      note: true,
      inner: { on: true },
      rules: { [EACH]: { max: true } },
      names: { "a.txt": true, "b.txt": true },
    });
  });

  it("infer the input type: required keys required, the rest optional, groups nested", () => {
    expectTypeOf<InputOf<typeof SCHEMA>>().toEqualTypeOf<
      { name: string } & {
        size?: number;
        limit?: number | null;
        note?: string;
        inner?: InputOf<{ on: ReturnType<typeof defaulted<boolean>> }>;
        rules?: Record<string, { max: number }>;
        names?: Record<string, string>;
      }
    >();
    expectTypeOf<AuthOptions["secret"]>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<AuthOptions["session"]>["freshAge"]>().toEqualTypeOf<Duration | null | undefined>();
    expectTypeOf<NonNullable<AuthOptions["hooks"]>["beforeSignIn"]>().toEqualTypeOf<BeforeSignIn | undefined>();
  });
});

describe("flag(): a boolean option never falls back to its default on null", () => {
  it("refuses null with 'must be a boolean', as the options did before they became schemas", async () => {
    const { resolveEmailOtpOptions } = await import("../email-otp/index.ts");
    const { resolveJwtOptions } = await import("../jwt/index.ts");
    const { resolveApiKeysOptions } = await import("../api-key/index.ts");
    const cases: [string, () => unknown][] = [
      ["emailOtp.allowSignUp", () => resolveEmailOtpOptions({ allowSignUp: null } as never)],
      ["emailOtp.emailChange.enabled", () => resolveEmailOtpOptions({ emailChange: { enabled: null } } as never)],
      ["jwt.disableSettingJwtHeader", () => resolveJwtOptions({ disableSettingJwtHeader: null } as never)],
      ["apiKeys.usage", () => resolveApiKeysOptions({ usage: null } as never)],
    ];
    for (const [field, resolve] of cases) {
      expect(resolve, field).toThrow(AuthConfigError);
      expect(resolve, field).toThrow(`${field} must be a boolean`);
    }
  });

  it("fills the default when unset and keeps false", async () => {
    const { resolveEmailOtpOptions } = await import("../email-otp/index.ts");
    expect(resolveEmailOtpOptions({}).allowSignUp).toBe(true);
    expect(resolveEmailOtpOptions({ allowSignUp: false }).allowSignUp).toBe(false);
  });
});
