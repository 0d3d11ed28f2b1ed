import type { AuthApp } from "./define.ts";
import type { RequestTools } from "../middleware/session.ts";
import { registerEmailPasswordRoutes } from "./email-password/index.ts";
import { registerAccountRoutes } from "./account/index.ts";
import { registerSessionRoutes } from "./session/index.ts";
import { registerEmailVerificationRoutes } from "./email-verification/index.ts";
import { registerEmailOtpRoutes } from "./email-otp/index.ts";
import { registerMagicLinkRoutes } from "./magic-link/index.ts";
import { registerTwoFactorRoutes } from "./two-factor/index.ts";
import { registerOAuthRoutes } from "./oauth/index.ts";
import { registerPasskeyRoutes } from "./passkey/index.ts";
import { registerAdminRoutes } from "./admin/index.ts";
import { registerOrganizationsRoutes } from "./organization/index.ts";
import { registerJwtRoutes } from "./jwt/index.ts";
import { registerApiKeyRoutes } from "./api-key/index.ts";
import { registerHealthRoutes } from "./health/index.ts";

/** Every feature's routes. Each registrar returns early when its feature is not installed (paths stay 404). */
export const FEATURE_ROUTES: Array<(app: AuthApp, tools: RequestTools) => void> = [
  registerEmailPasswordRoutes,
  registerAccountRoutes,
  registerSessionRoutes,
  registerEmailVerificationRoutes,
  registerEmailOtpRoutes,
  registerMagicLinkRoutes,
  registerTwoFactorRoutes,
  registerOAuthRoutes,
  registerPasskeyRoutes,
  registerAdminRoutes,
  registerOrganizationsRoutes,
  registerJwtRoutes,
  registerApiKeyRoutes,
  registerHealthRoutes,
];
