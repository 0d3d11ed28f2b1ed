import type { AuthOptions, AuthPlugin, InputOf, OptionShape } from "@latchkey/core";
import { defaulted, group, optional, shapeOf } from "@latchkey/core/internal";
import { fromSocket, type GetClientIp } from "./http/client-ip.ts";
import { CORS_SCHEMA, type CorsOptions } from "./middleware/cors.ts";

/** The one definition of the options hono-adapter adds to core's (`AUTH_SCHEMA`): type, default, docs row. */
export const ADAPTER_SCHEMA = {
  /**
   * client address for rate limits; headers are never trusted unless you choose a preset that reads them. Presets:
   * `fromSocket`, `fromCfConnectingIp`, `fromForwardedFor(hops)`
   * @defaultValue `clientIp.fromSocket`
   */
  getClientIp: defaulted<GetClientIp>(fromSocket),
  /**
   * OpenTelemetry spans and metrics through the app's `@opentelemetry/api` (optional peer; nothing is recorded
   * without it or without a registered SDK); `false` turns it off. See [observability.md](observability.md)
   */
  telemetry: defaulted<boolean>(true),
  /**
   * CORS for browser apps on other origins. `true`: CORS with credentials for `trustedOrigins` (preflights answer 204
   * on every auth path; `set-auth-jwt` and `retry-after` exposed). An object turns it on with these keys: see
   * [client.md](client.md). Anything else (`"false"`, `0`) is an `AuthConfigError`
   */
  cors: defaulted<boolean | CorsOptions>(false, { fields: CORS_SCHEMA }),
  /** The API explorer at `/reference`. */
  reference: group({
    /** the explorer at `/reference` */
    enabled: defaulted<boolean>(true),
    /**
     * where the explorer's script loads from; serving it locally needs the optional peer `@scalar/api-reference`
     * (without it and without `scriptUrl`, `/reference` answers 404 saying what to install)
     * @defaultValue served locally
     */
    scriptUrl: optional<string>(),
    /**
     * the explorer's title
     * @defaultValue `"<appName> auth API"`
     */
    title: optional<string>(),
  }),
};

/** Everything `createAuth` accepts: core's options (`AuthOptions`) and the HTTP ones (`ADAPTER_SCHEMA`). */
export type CreateAuthOptions<P extends readonly AuthPlugin[] = readonly AuthPlugin[]> = AuthOptions<P> &
  InputOf<typeof ADAPTER_SCHEMA>;

/**
 * The keys `createAuth` accepts on top of core's (`AUTH_OPTION_SHAPE` in @latchkey/core, from `ADAPTER_SCHEMA`);
 * anything else is an `AuthConfigError` naming the nearest valid key.
 */
export const ADAPTER_OPTION_SHAPE: OptionShape = shapeOf(ADAPTER_SCHEMA);
