/**
 * @latchkey/resend-sender: deliver Latchkey's emails through Resend.
 *
 * @example
 * import { resendEmailSender } from "@latchkey/resend-sender";
 */
export { resendEmailSender } from "./resend-sender.ts";
export type { ResendEmailSenderOptions, ResendClientLike } from "./resend-sender.ts";
