import { z } from "@hono/zod-openapi";
import { base64url, MAGIC_LINK_PLUGIN_ID, webCryptoRandom, type MagicLinkService } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { EmailField, SignInResponseSchema, signInAnswer, SuccessSchema } from "../schemas.ts";

const TAG = "Magic link";

const CallbackField = z.string().max(2048).nullish().openapi({
  description:
    "Where the browser goes once signed in: a path on `baseUrl` or a URL on a trusted origin (else 400 `INVALID_CALLBACK_URL`). Default: `baseUrl`.",
  example: "/dashboard",
});

const MagicLinkSignInSchema = SignInResponseSchema.extend({
  callbackURL: z.string().openapi({ description: "The trusted `callbackURL`, absolute: where to send the browser." }),
}).openapi("MagicLinkSignIn");

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string,
  );
}

// The confirm page's script: reads the token and callbackURL from its own address, POSTs them to the same path and
// follows the answer's `callbackURL`. With `twoFactor()` the answer may ask for the second step first: the page then
// shows a code field and POSTs it to `/two-factor/verify` beside this path (the pending sign-in travels as its
// HttpOnly cookie). No value of the query is written into the page by the server.
const CONFIRM_SCRIPT = `const q=new URLSearchParams(location.search);const b=document.getElementById("go");const m=document.getElementById("msg");
const f=document.getElementById("tf");const c=document.getElementById("code");let next=null;
b.addEventListener("click",async()=>{b.disabled=true;m.textContent="Signing in...";
try{const r=await fetch(location.pathname,{method:"POST",credentials:"same-origin",headers:{"content-type":"application/json"},body:JSON.stringify({token:q.get("token")??"",callbackURL:q.get("callbackURL")})});
const j=await r.json();if(r.ok&&j.twoFactorRequired){next=j.callbackURL;b.hidden=true;f.hidden=false;m.textContent="Enter the code from your authenticator app.";c.focus();return;}
if(r.ok){location.replace(j.callbackURL);return;}
m.textContent=j.code==="INVALID_TOKEN"?"This link is invalid, used or expired. Ask for a new one.":(j.message??"Sign-in failed.");}
catch{m.textContent="Sign-in failed. Try again.";}b.disabled=false;});
f.addEventListener("submit",async(e)=>{e.preventDefault();m.textContent="Checking...";
try{const r=await fetch(location.pathname.replace(/magic-link\\/verify$/,"two-factor/verify"),{method:"POST",credentials:"same-origin",headers:{"content-type":"application/json"},body:JSON.stringify({code:c.value})});
const j=await r.json();if(r.ok){location.replace(next);return;}m.textContent=j.message??"Sign-in failed.";}
catch{m.textContent="Sign-in failed. Try again.";}});`;

/** The one-button page a mail scanner may fetch without spending the link (only the button's POST spends it). */
function confirmPage(appName: string, nonce: string): string {
  const name = escapeHtml(appName);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>Sign in to ${name}</title><style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}button{font-size:1.1rem;padding:.6rem 1.4rem}</style></head><body><h1>Sign in to ${name}</h1><p>Press the button to finish signing in on this device.</p><button id="go" type="button">Sign in</button><form id="tf" hidden><label for="code">Authenticator code</label> <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="10" required> <button type="submit">Verify</button></form><p id="msg" role="status"></p><script nonce="${nonce}">${CONFIRM_SCRIPT}</script></body></html>`;
}

function registerConfirmPage(app: AuthApp, tools: RequestTools): void {
  const { appName } = tools.core.config;
  app.get("/magic-link/verify", (c) => {
    const nonce = base64url(webCryptoRandom.bytes(16));
    return c.html(confirmPage(appName, nonce), 200, {
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    });
  });
}

function registerSend(app: AuthApp, tools: RequestTools, service: MagicLinkService): void {
  const { options } = service;
  const minutes = Math.max(1, Math.round(options.expiresInMs / 60_000));
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/sign-in/magic-link",
      sendsEmail: true,
      rateLimit: { window: "1m", max: 3 },
      operationId: "signInMagicLink",
      tag: TAG,
      rejectNavigation: true,
      summary: "Email a sign-in link",
      description: `Always \`{success: true}\`, with the same status and body whether or not the email is registered. ${options.allowSignUp ? "Any address" : "A registered address (sign-up is off)"} gets a single-use link (earlier links to it die; only the token's SHA-256 is stored) that lives ${minutes} minutes and opens ${options.confirmURL === null ? "the confirm page `GET /magic-link/verify`" : "the app's `confirmURL`"} with \`?token=&callbackURL=\`. Opening it spends nothing (mail scanners fetch links): the page's button POSTs to \`/magic-link/verify\`. \`name\` is used only when the link creates the user.`,
      body: z.object({ email: EmailField, callbackURL: CallbackField, name: z.string().max(256).nullish() }),
      response: { schema: SuccessSchema, description: "Accepted" },
    },
    async (c, { body }) => c.json(await service.send(body, tools.meta(c))),
  );
}

function registerVerify(app: AuthApp, tools: RequestTools, service: MagicLinkService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/magic-link/verify",
      rateLimit: { window: "1m", max: 10 },
      operationId: "verifyMagicLink",
      tag: TAG,
      rejectNavigation: true,
      summary: "Spend a sign-in link and sign in",
      description: `Spends the link's single-use token and signs in: a fresh session and cookie, and \`callbackURL\` (trusted, absolute) to send the browser to. An unknown email becomes a new, verified user${service.options.allowSignUp ? "" : " only while sign-up is on (it is off)"} (the \`beforeUserCreated\` and \`beforeSignIn\` hooks apply); an existing unverified user loses every account, session and API key made before this proof of the mailbox. Unknown, used, expired or superseded links: 400 \`INVALID_TOKEN\`. Of two requests with the same link exactly one signs in. \`GET /magic-link/verify\` (the emailed link) is the one-button page that sends this request.`,
      body: z.object({ token: z.string().max(256), callbackURL: CallbackField }),
      response: {
        schema: signInAnswer(tools.core, MagicLinkSignInSchema),
        description: "Signed in; sets the session cookie",
      },
      errors: [403],
    },
    async (c, { body }) => {
      const result = await service.verify(body, tools.meta(c));
      return signInResponse(c, result, tools.core.config, { callbackURL: result.callbackURL });
    },
  );
}

/**
 * Registers the magic-link endpoints when `magicLink()` is installed (else they answer 404).
 *
 * @example
 * registerMagicLinkRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerMagicLinkRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(MAGIC_LINK_PLUGIN_ID);
  if (!feature) return;
  registerSend(app, tools, feature.service);
  registerConfirmPage(app, tools);
  registerVerify(app, tools, feature.service);
}
