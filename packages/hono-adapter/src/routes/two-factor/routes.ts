import { z } from "@hono/zod-openapi";
import { TWO_FACTOR_PLUGIN_ID, type TwoFactorService, type UserRecord, type SessionRecord } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { PasswordField, SuccessSchema } from "../schemas.ts";
import { registerTwoFactorSignInRoutes } from "./sign-in.ts";

const TAG = "Two-factor";

const ReauthPassword = PasswordField.optional().openapi({
  description:
    "The account's password (checked and counted by the password lockout, 401 `INVALID_PASSWORD`). Without it the session must be fresh (younger than `session.freshAge`, else 403 `SESSION_NOT_FRESH`).",
});

const CodeField = z.string().max(64).openapi({
  description: "A current code of the authenticator app (spaces ignored).",
  example: "287082",
});

const RecoveryCodesSchema = z.array(z.string()).openapi({
  description: "Single-use recovery codes (`xxxxx-xxxxx`), shown this once: only their hashes are stored.",
});

const SetupSchema = z
  .object({
    totpURI: z.string().openapi({
      description: "The `otpauth://totp/` URI for the authenticator app (render it as a QR code on the page).",
    }),
    secret: z.string().openapi({ description: "The key in base32, for typing it in by hand." }),
    recoveryCodes: RecoveryCodesSchema,
  })
  .openapi("TwoFactorSetup");

const REAUTH_TEXT =
  "Needs the password (`password`) or a fresh session (created less than `session.freshAge` ago, else 403 `SESSION_NOT_FRESH`).";

/** The password when given, else a fresh session: the proof `enable`, `disable` and regeneration ask for. */
async function reauthenticate(
  tools: RequestTools,
  session: { userRecord: UserRecord; sessionRecord: SessionRecord },
  password: string | undefined,
  meta: ReturnType<RequestTools["meta"]>,
): Promise<void> {
  if (password === undefined) tools.core.ctx.sessions.assertFresh(session.sessionRecord);
  else await tools.core.account.verifyPassword(session.userRecord, password, meta);
}

function registerEnable(app: AuthApp, tools: RequestTools, service: TwoFactorService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/two-factor/enable",
      rateLimit: { window: "1m", max: 10 },
      operationId: "enableTwoFactor",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Start the authenticator-app setup",
      description: `A new TOTP key (${service.options.algorithm}, ${service.options.digits} digits, ${service.options.period} s) as \`totpURI\` and \`secret\`, and ${service.options.recoveryCodes} recovery codes, all shown this once. Nothing changes for sign-in until \`POST /two-factor/verify-setup\` proves the app with a first code; a setup not yet proven is replaced by a new one. ${REAUTH_TEXT} 409 \`TWO_FACTOR_ALREADY_ENABLED\` while two-factor is on (disable it first).`,
      body: z.object({ password: ReauthPassword }),
      response: { schema: SetupSchema, description: "The setup, shown once" },
      errors: [403, 409],
    },
    async (c, { body, session }) => {
      const meta = tools.meta(c);
      await reauthenticate(tools, session, body.password, meta);
      return c.json(await service.enable(session.userRecord, meta));
    },
  );
}

function registerVerifySetup(app: AuthApp, tools: RequestTools, service: TwoFactorService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/two-factor/verify-setup",
      rateLimit: { window: "1m", max: 10 },
      operationId: "verifyTwoFactorSetup",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Prove the authenticator app and switch two-factor on",
      description: `Switches two-factor on with a current code of the app set up by \`/two-factor/enable\` (codes of ${service.options.window} step${service.options.window === 1 ? "" : "s"} either side of now are accepted; no code of an accepted step or an earlier one is ever accepted again). Emits \`TwoFactorEnabled\`. 400 \`TWO_FACTOR_NOT_SET_UP\` without a setup, 409 \`TWO_FACTOR_ALREADY_ENABLED\` when on, 400 \`INVALID_TWO_FACTOR_CODE\` for a wrong or replayed code (counted by the second-factor lockout: 429 \`ACCOUNT_LOCKED\` past \`lockout.maxFailures\`).`,
      body: z.object({ code: CodeField }),
      response: { schema: SuccessSchema, description: "Two-factor is on" },
      errors: [409],
    },
    async (c, { body, session }) => c.json(await service.verifySetup(session.userRecord, body.code, tools.meta(c))),
  );
}

function registerDisable(app: AuthApp, tools: RequestTools, service: TwoFactorService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/two-factor/disable",
      rateLimit: { window: "1m", max: 10 },
      operationId: "disableTwoFactor",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Switch two-factor off",
      description: `${REAUTH_TEXT} And \`code\`: a current authenticator code or an unused recovery code (400 \`INVALID_TWO_FACTOR_CODE\` otherwise, counted by the second-factor lockout). The key, the recovery codes and every trusted device go. Emits \`TwoFactorDisabled\` (and \`RecoveryCodeUsed\` for a recovery code). 400 \`TWO_FACTOR_NOT_ENABLED\` when off.`,
      body: z.object({
        password: ReauthPassword,
        code: z.string().max(64).openapi({ description: "A current authenticator code or a recovery code." }),
      }),
      response: { schema: SuccessSchema, description: "Two-factor is off" },
      errors: [403],
    },
    async (c, { body, session }) => {
      const meta = tools.meta(c);
      await reauthenticate(tools, session, body.password, meta);
      return c.json(await service.disable(session.userRecord, body.code, meta));
    },
  );
}

function registerRecoveryCodes(app: AuthApp, tools: RequestTools, service: TwoFactorService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/two-factor/recovery-codes",
      rateLimit: { window: "1m", max: 10 },
      operationId: "regenerateRecoveryCodes",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Replace the recovery codes",
      description: `${service.options.recoveryCodes} new recovery codes, shown this once; every earlier one stops working at once. ${REAUTH_TEXT} 400 \`TWO_FACTOR_NOT_ENABLED\` when off.`,
      body: z.object({ password: ReauthPassword }),
      response: {
        schema: z.object({ recoveryCodes: RecoveryCodesSchema }).openapi("RecoveryCodes"),
        description: "The new codes, shown once",
      },
      errors: [403],
    },
    async (c, { body, session }) => {
      const meta = tools.meta(c);
      await reauthenticate(tools, session, body.password, meta);
      return c.json(await service.regenerateRecoveryCodes(session.userRecord, meta));
    },
  );
}

/**
 * Registers the two-factor endpoints when `twoFactor()` is installed (else they answer 404).
 *
 * @example
 * registerTwoFactorRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerTwoFactorRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(TWO_FACTOR_PLUGIN_ID);
  if (!feature) return;
  registerEnable(app, tools, feature.service);
  registerVerifySetup(app, tools, feature.service);
  registerDisable(app, tools, feature.service);
  registerRecoveryCodes(app, tools, feature.service);
  registerTwoFactorSignInRoutes(app, tools, feature.service);
}
