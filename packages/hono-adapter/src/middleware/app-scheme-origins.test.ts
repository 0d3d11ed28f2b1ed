import { describe, expect, it } from "vitest";
import { AuthConfigError } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createAuth } from "../create-auth.ts";
import { BASE_URL, TEST_SECRET, createTestAuth } from "../../test/test-auth.ts";

// Review fix 6: `trustedOrigins: ["capacitor://localhost"]` resolved to the URL origin of a non-http(s) URL, the
// opaque string "null", after which every non-http(s) Origin (a `chrome-extension://` page of an attacker's
// extension, a sandboxed page sending `Origin: null`) passed the CSRF check. Such origins now compare by scheme and
// host exactly.

describe("trusted origins with an app scheme", () => {
  const setup = async () => {
    const t = createTestAuth({ trustedOrigins: ["capacitor://localhost"] });
    const user = await t.signUp("ada@example.com", "ada password 1");
    const write = (origin: string) =>
      t.request("POST", "/change-password", {
        headers: { cookie: `__Host-latchkey.session=${user.token}`, origin },
        body: { currentPassword: "wrong password x", newPassword: "new password 2" },
      });
    return { t, write };
  };

  it("a chrome-extension:// page (or Origin: null) does not pass the CSRF check because capacitor://localhost is trusted", async () => {
    const { write } = await setup();
    for (const origin of [
      "chrome-extension://attackerextensionid",
      "null",
      "capacitor://evil.example",
      "moz-extension://x",
    ]) {
      const res = await write(origin);
      expect(res.status, origin).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe("INVALID_ORIGIN");
    }
  });

  it("the trusted app origin itself passes (any path, any case of the scheme)", async () => {
    const { write } = await setup();
    for (const origin of ["capacitor://localhost", "CAPACITOR://localhost/"]) {
      // Past CSRF: the handler answers (the wrong current password is its own 401).
      const res = await write(origin);
      expect(res.status, origin).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe("INVALID_PASSWORD");
    }
  });

  it("createAuth refuses a trusted origin that has no host to compare", () => {
    for (const bad of ["file:///home/app/index.html", "capacitor:", "null", "data:text/html,x"]) {
      expect(
        () => createAuth({ secret: TEST_SECRET, baseUrl: BASE_URL, database: memoryStore(), trustedOrigins: [bad] }),
        bad,
      ).toThrow(AuthConfigError);
    }
  });
});
