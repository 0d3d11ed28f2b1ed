import { describe, expect, it } from "vitest";
import { AuthConfigError } from "../errors/errors.ts";
import { EACH, nearestName, rejectUnknownOptions, type OptionShape } from "./closed-options.ts";

const SHAPE: OptionShape = {
  enabled: true,
  store: true,
  rules: { [EACH]: { window: true, max: true } },
  nested: { deep: { leaf: true } },
};

function fieldOf(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AuthConfigError);
    return (error as AuthConfigError).field;
  }
}

describe("rejectUnknownOptions", () => {
  it("names the path at any depth, through free-keyed maps, and leaves `true` values alone", () => {
    expect(fieldOf(() => rejectUnknownOptions({ enable: true }, SHAPE, ""))).toBe("enable");
    expect(fieldOf(() => rejectUnknownOptions({ nested: { deep: { leaf: 1, lea: 2 } } }, SHAPE, "x"))).toBe(
      "x.nested.deep.lea",
    );
    expect(fieldOf(() => rejectUnknownOptions({ rules: { "/a/b": { window: "1m", mx: 1 } } }, SHAPE, ""))).toBe(
      'rules["/a/b"].mx',
    );
    // A store or a function is an opaque value: its own keys are not options.
    expect(
      fieldOf(() => rejectUnknownOptions({ store: { users: {}, anything: 1 }, rules: { "/x": false } }, SHAPE, "")),
    ).toBeNull();
    // Class instances and arrays are left to the feature's own validation.
    expect(fieldOf(() => rejectUnknownOptions({ nested: [1, 2] }, SHAPE, ""))).toBeNull();
  });

  it("suggests the nearest valid name, or lists the valid ones when nothing is close", () => {
    expect(() => rejectUnknownOptions({ enabeld: true }, SHAPE, "rateLimit")).toThrow(
      "rateLimit.enabeld is not an option; did you mean rateLimit.enabled?",
    );
    expect(() => rejectUnknownOptions({ qqqqqqqq: 1 }, SHAPE, "")).toThrow(
      "qqqqqqqq is not an option; valid: enabled, store, rules, nested",
    );
    expect(() => rejectUnknownOptions({ a: 1 }, {}, "auditLog")).toThrow(
      "auditLog.a is not an option; none are accepted here",
    );
  });
});

describe("nearestName", () => {
  it("prefers the smallest edit, then a name that contains the typo", () => {
    expect(nearestName("enable", ["enabled", "window", "max"])).toBe("enabled");
    expect(nearestName("Secure", ["secure", "domain"])).toBe("secure");
    expect(nearestName("prefix", ["defaultPrefix", "header"])).toBe("defaultPrefix");
    expect(nearestName("emai", ["email", "emailPassword"])).toBe("email");
    expect(nearestName("zz", ["enabled"])).toBeNull();
  });
});
