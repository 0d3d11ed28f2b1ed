import type { Context } from "hono";
import { OAUTH_STATE_TTL_MS, OAuthCallbackError, type OAuthService, type ResolvedConfig } from "@latchkey/core";
import type { RequestTools } from "../../middleware/session.ts";
import type { AuthEnv } from "../../env.ts";
import { readSoleCookie, serializeCookie } from "../../http/cookies.ts";
import { isFormPost } from "../../middleware/body-guard.ts";

// A flow's two ends over HTTP: its start sets the state cookie and answers the provider's URL; its finish spends
// the state, clears the cookie and redirects.

/** The cookie that binds a flow to the browser that started it: HttpOnly, only sent to the callback, 10 minutes. */
function stateCookie(config: ResolvedConfig, value: string, maxAge: number, formPost: boolean): string {
  const secure = config.cookies.secure || formPost;
  return serializeCookie({
    name: stateCookieName(config),
    value,
    maxAge,
    httpOnly: true,
    // A `form_post` provider (Apple) POSTs cross-site: only a SameSite=None cookie comes along.
    sameSite: formPost ? "None" : "Lax",
    secure,
    path: `${config.basePath}/callback/`,
    domain: null,
  });
}

function stateCookieName(config: ResolvedConfig): string {
  return `${config.cookies.secure ? "__Secure-" : ""}latchkey_oauth_state`;
}

export async function start(
  c: Context<AuthEnv>,
  service: OAuthService,
  config: ResolvedConfig,
  body: Parameters<OAuthService["start"]>[0],
  tools: RequestTools,
  linkUserId: string | null,
): Promise<Response> {
  const { url, state } = await service.start(body, tools.meta(c), linkUserId);
  const formPost = service.providers().find((p) => p.id === body.provider)?.responseMode === "form_post";
  c.header("set-cookie", stateCookie(config, service.stateCookieValue(state), OAUTH_STATE_TTL_MS / 1000, formPost), {
    append: true,
  });
  c.header("cache-control", "no-store");
  // A plain HTML form (no script to read `{ url }`): the browser goes straight to the provider.
  if (isFormPost(c)) return c.redirect(url, 302);
  return c.json({ url });
}

export async function finish(
  c: Context<AuthEnv>,
  service: OAuthService,
  config: ResolvedConfig,
  tools: RequestTools,
  providerId: string,
  params: URLSearchParams,
): Promise<Response> {
  const cookie = readSoleCookie(c.req.header("cookie"), stateCookieName(config));
  const formPost = service.providers().find((p) => p.id === providerId)?.responseMode === "form_post";
  const headers = new Headers({ "cache-control": "no-store", "referrer-policy": "no-referrer" });
  // The flow is over whatever happens: its cookie goes.
  headers.append("set-cookie", stateCookie(config, "", 0, formPost));
  try {
    const done = await service.callback(providerId, params, typeof cookie === "string" ? cookie : null, tools.meta(c));
    if (done.signIn) headers.append("set-cookie", serializeCookie(done.signIn.cookie));
    headers.set("location", done.redirect);
  } catch (error) {
    if (!(error instanceof OAuthCallbackError)) throw error;
    headers.set("location", error.redirect);
  }
  return new Response(null, { status: 302, headers });
}
