import { renderEmail, DEFAULT_TEMPLATES } from "./src/email/email.ts";
const vars = { appName: "Latchkey", otp: "123456", action: "sign in", email: "otp-abc-1@bench.test", expiresInMinutes: "5" };
for (let r = 0; r < 3; r++) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < 100000; i++) renderEmail({}, "otp-sign-in", vars);
  console.log(Number(process.hrtime.bigint() - t) / 100000, "ns");
}
console.log(JSON.stringify(renderEmail({}, "otp-sign-in", vars)).length);
