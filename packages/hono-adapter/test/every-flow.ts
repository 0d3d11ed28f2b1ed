import { apiKeyFlows } from "./every-flow-api-keys.ts";
import { deletionFlows } from "./every-flow-deletion.ts";
import { type FlowHarness, flowKit } from "./every-flow-kit.ts";
import { emailOtpFlows } from "./every-flow-otp.ts";
import { passwordFlows } from "./every-flow-password.ts";
import { magicLinkAndTwoFactorFlows } from "./every-flow-two-factor.ts";

export type { FlowHarness } from "./every-flow-kit.ts";

/**
 * Drives every flow of every feature over HTTP, keeping each secret it sees: sign-up to account deletion,
 * password sign-in (wrong and right), get-session with `set-auth-jwt`, JWTs, profile, verify/change/set
 * password, link verification, password reset by token and by OTP, email OTP of every purpose (wrong, right,
 * replayed), magic link (forged, right, replayed), two-factor (setup, wrong and right code, recovery codes, the second sign-in step with a recovery code and a trusted device, disable), email change, API keys (create, verify right/wrong/by header, list, update, delete, sweep),
 * sign-out, deletion by password and by emailed token. Needs `emailOtp({ codeLength: 10, emailChange:
 * { enabled: true } })`, `magicLink()`, `twoFactor()`, `apiKeys({ grantablePermissions: { files: ["read"] }, usage: true })`, `jwt()` and `auditLog()`.
 *
 * @example
 * await runEveryFlow(harness);
 */
export async function runEveryFlow(h: FlowHarness): Promise<void> {
  const kit = flowKit(h);
  const adaId = await passwordFlows(h, kit);
  const ada = await emailOtpFlows(h, kit, adaId);
  await apiKeyFlows(h, kit, ada.t);
  await magicLinkAndTwoFactorFlows(h, kit);
  await deletionFlows(h, kit, ada.t, ada.p4);
}
