import type { TestAuth } from "../../../test/test-auth.ts";

// Shared by the email-verification route tests (imported by *.test.ts files only).

export const PASSWORD = "correct horse battery";
let ipSeq = 0;
/** A fresh client address per call, so the per-IP rules stay out of the way. */
const nextIp = () => `198.18.${Math.floor(ipSeq / 250)}.${(ipSeq++ % 250) + 1}`;

export async function send(t: TestAuth, email: string, callbackUrl?: string) {
  const res = await t.request("POST", "/send-verification-email", {
    body: { email, ...(callbackUrl === undefined ? {} : { callbackUrl }) },
    ip: nextIp(),
  });
  await t.settle();
  return res;
}

export const verify = (t: TestAuth, email: string, token: string) =>
  t.request("POST", "/verify-email", { body: { email, token }, ip: nextIp() });
