import { expect } from "vitest";
import { hashSecret } from "@latchkey/core";
import { spentTokenHadEffect } from "@latchkey/test-support";
import { answer, freshEmail } from "./harness.ts";
import { bearer } from "../test-auth.ts";
import { faultCaseList, OLD } from "./fault-case-kit.ts";

const { cases, faultCase } = faultCaseList();

faultCase("email change", {
  async prepare(t) {
    const email = freshEmail();
    const newEmail = freshEmail("new");
    const { token, userId } = await t.signUp(email, OLD);
    const req = await t.request("POST", "/email-otp/request-email-change", {
      headers: bearer(token),
      body: { newEmail },
    });
    expect(req.status).toBe(200);
    return { email, newEmail, token, userId, code: t.auth.getOtp(newEmail)! };
  },
  request: (t, c) =>
    answer(
      t.request("POST", "/email-otp/change-email", {
        headers: bearer(c.token),
        body: { newEmail: c.newEmail, otp: c.code },
      }),
    ),
  scope: (c) => ({ userIds: [c.userId], emails: [c.email, c.newEmail], sessionTokens: [c.token] }),
  async missing(t, c) {
    return (await t.store.users.findByEmail(c.newEmail))?.id === c.userId ? null : "the email did not change";
  },
  async retry(t, c) {
    let again = await this.request(t, c);
    if (again.status !== 200 && (await this.missing(t, c, null)) !== null) {
      expect(again.body.code).toBe("INVALID_OTP");
      const req = await t.request("POST", "/email-otp/request-email-change", {
        headers: bearer(c.token),
        body: { newEmail: c.newEmail },
      });
      expect(req.status).toBe(200);
      again = await answer(
        t.request("POST", "/email-otp/change-email", {
          headers: bearer(c.token),
          body: { newEmail: c.newEmail, otp: t.auth.getOtp(c.newEmail)! },
        }),
      );
    }
    if (again.status !== 200) expect(again.body.code).toBe("INVALID_OTP");
  },
});

faultCase("account deletion with the password", {
  async prepare(t) {
    const email = freshEmail();
    return { email, ...(await t.signUp(email, OLD)) };
  },
  request: (t, c) =>
    answer(t.request("POST", "/delete-account", { headers: bearer(c.token), body: { password: OLD } })),
  scope: (c) => ({ userIds: [c.userId], emails: [c.email], sessionTokens: [c.token] }),
  missing: async (t, c) => ((await t.store.users.findById(c.userId)) ? "the user is still there" : null),
  async retry(t, c) {
    const again = await this.request(t, c);
    if (again.status !== 200) expect(again.status, JSON.stringify(again.body)).toBe(401);
  },
});

faultCase("account deletion by emailed token", {
  async prepare(t) {
    const email = freshEmail();
    const { token, userId } = await t.signUp(email, OLD);
    expect((await t.request("POST", "/delete-account/request", { headers: bearer(token), body: {} })).status).toBe(200);
    return { email, token, userId, secret: t.auth.getOtp(email)! };
  },
  request: (t, c) => answer(t.request("POST", "/delete-account/confirm", { body: { token: c.secret } })),
  scope: (c) => ({ userIds: [c.userId], emails: [c.email], sessionTokens: [c.token] }),
  missing: async (t, c) => ((await t.store.users.findById(c.userId)) ? "the user is still there" : null),
  async invariants(t, c) {
    const row = await t.store.verifications.findByValueHash(hashSecret(c.secret));
    const gone = (await t.store.users.findById(c.userId)) === null;
    return spentTokenHadEffect("the deletion token", row, () => (gone ? "complete" : "none"));
  },
  async retry(t, c) {
    const again = await answer(t.request("POST", "/delete-account/confirm", { body: { token: c.secret } }));
    if (again.status === 200 || (await t.store.users.findById(c.userId)) === null) return;
    // The token is spent and the user is still there (I5: redoable): ask for a new one.
    expect(again.body.code).toBe("INVALID_TOKEN");
    const req = await t.request("POST", "/delete-account/request", { headers: bearer(c.token), body: {} });
    expect(req.status).toBe(200);
    const secret = t.auth.getOtp(c.email)!;
    const redo = await answer(t.request("POST", "/delete-account/confirm", { body: { token: secret } }));
    expect(redo.status, JSON.stringify(redo.body)).toBe(200);
  },
});

faultCase("API-key reroll", {
  async prepare(t) {
    const { token, userId } = await t.signUp(freshEmail(), OLD);
    const created = await answer(t.request("POST", "/api-key/create", { headers: bearer(token), body: {} }));
    return { token, userId, key: created.body.key as string, keyId: (created.body.apiKey as { id: string }).id };
  },
  request: (t, c) =>
    answer(t.request("POST", "/api-key/reroll", { headers: bearer(c.token), body: { keyId: c.keyId } })),
  scope: (c) => ({ userIds: [c.userId], apiKeyIds: [c.keyId], apiKeyValues: [c.key] }),
  async missing(t, c, a) {
    const verify = async (key: string) =>
      (await answer(t.request("POST", "/api-key/verify", { body: { key } }))).body.valid === true;
    if (a?.status === 200 && !(await verify(a.body.key as string))) return "the new value does not verify";
    if (a === null) return null; // no answer: either value may be current, a further reroll decides
    return a.status === 200 && (await verify(c.key)) ? "the replaced value still verifies" : null;
  },
  async retry(t, c) {
    const again = await this.request(t, c);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect((await answer(t.request("POST", "/api-key/verify", { body: { key: c.key } }))).body.valid).toBe(false);
  },
});

/** The fault cases of the account: an email change, its deletion (by password, by emailed token), an API-key reroll. */
export const accountFaultCases = cases;
