import { describe, expect, it } from "vitest";
import { AuthConfigError } from "../errors/errors.ts";
import { resolveOAuthOptions, type OAuthOptions } from "./options.ts";
import { apple, discord, github, gitlab, google, microsoft } from "./presets.ts";
import { oauth2, oidc } from "./providers.ts";

const creds = { clientId: "id", clientSecret: "secret" };
const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AuthConfigError);
    return (error as AuthConfigError).message;
  }
  throw new Error("not refused");
};

describe("oauth() options", () => {
  it("fills the defaults and keeps the providers by id", () => {
    const resolved = resolveOAuthOptions({ providers: [google(creds), github(creds)] });
    expect([...resolved.providers.keys()]).toEqual(["google", "github"]);
    expect(resolved.allowSignUp).toBe(true);
    expect(resolved.trustedProviders.size).toBe(0);
    expect(resolved.errorCallbackURL).toBeNull();
  });

  it("refuses no providers, a repeated id, a trusted provider that is not configured, an unknown key", () => {
    expect(refusal(() => resolveOAuthOptions({ providers: [] }))).toMatch(/oauth\.providers.*non-empty/);
    expect(refusal(() => resolveOAuthOptions({} as OAuthOptions))).toMatch(/providers/);
    expect(refusal(() => resolveOAuthOptions({ providers: [google(creds), google(creds)] }))).toMatch(
      /repeats.*google/,
    );
    expect(
      refusal(() =>
        resolveOAuthOptions({ providers: [google(creds)], accountLinking: { trustedProviders: ["github"] } }),
      ),
    ).toMatch(/trustedProviders.*"github"/);
    expect(
      refusal(() => resolveOAuthOptions({ providers: [google(creds)], acountLinking: {} } as unknown as OAuthOptions)),
    ).toMatch(/acountLinking/);
    expect(refusal(() => resolveOAuthOptions({ providers: [{ id: "x" }] } as unknown as OAuthOptions))).toMatch(
      /oidc\(\), oauth2\(\) or a preset/,
    );
  });
});

describe("providers", () => {
  it("oidc(): https issuers, or http on loopback only; ids, secrets and scopes checked", () => {
    expect(oidc({ id: "corp", issuer: "https://id.example/", ...creds })).toMatchObject({
      kind: "oidc",
      issuer: "https://id.example",
      scopes: ["openid", "email", "profile"],
      responseMode: "query",
    });
    expect(oidc({ id: "dev", issuer: "http://127.0.0.1:9000", ...creds }).issuer).toBe("http://127.0.0.1:9000");
    expect(refusal(() => oidc({ id: "corp", issuer: "http://id.example", ...creds }))).toMatch(/https/);
    expect(refusal(() => oidc({ id: "Corp!", issuer: "https://id.example", ...creds }))).toMatch(/lower-case/);
    expect(refusal(() => oidc({ id: "corp", issuer: "https://id.example", clientId: "id", clientSecret: "" }))).toMatch(
      /clientSecret/,
    );
    expect(refusal(() => oidc({ id: "corp", issuer: "https://id.example", ...creds, scopes: ["has space"] }))).toMatch(
      /scope tokens/,
    );
  });

  it("oauth2(): endpoints checked, mapProfile required", () => {
    const mapProfile = () => ({ id: "1", email: null, emailVerified: false, name: null, image: null });
    const base = {
      id: "acme",
      authorizationUrl: "https://acme.example/authorize",
      tokenUrl: "https://acme.example/token",
      userInfoUrl: "https://api.acme.example/me",
      ...creds,
      mapProfile,
    };
    expect(oauth2(base)).toMatchObject({ kind: "oauth2", issuer: null, scopes: [] });
    expect(refusal(() => oauth2({ ...base, tokenUrl: "ftp://acme.example/token" }))).toMatch(/tokenUrl/);
    expect(refusal(() => oauth2({ ...base, mapProfile: undefined as never }))).toMatch(/mapProfile/);
  });

  it("presets are data: issuers, endpoints, scopes, response mode, how a verified email is read", () => {
    expect(google(creds)).toMatchObject({ id: "google", issuer: "https://accounts.google.com" });
    expect(gitlab(creds).issuer).toBe("https://gitlab.com");
    expect(apple(creds)).toMatchObject({ responseMode: "form_post", scopes: ["openid", "email", "name"] });
    expect(apple(creds).emailVerified({ email_verified: "true" })).toBe(true);
    expect(google(creds).emailVerified({ email_verified: "false" })).toBe(false);
    expect(github(creds)).toMatchObject({ kind: "oauth2", tokenUrl: "https://github.com/login/oauth/access_token" });
    expect(github(creds).scopes).toEqual(["read:user", "user:email"]);
    expect(discord(creds).userInfoUrl).toBe("https://discord.com/api/users/@me");
  });

  it("microsoft(): one tenant, and Entra's email counts as verified only with xms_edov (nOAuth)", () => {
    const tenant = "8eaef023-2b34-4da1-9baa-8bc8c9d6a490";
    const ms = microsoft({ ...creds, tenant });
    expect(ms.issuer).toBe(`https://login.microsoftonline.com/${tenant}/v2.0`);
    expect(ms.emailVerified({ email: "a@b.example", email_verified: true })).toBe(false);
    expect(ms.emailVerified({ email: "a@b.example", xms_edov: true })).toBe(true);
    expect(refusal(() => microsoft({ ...creds, tenant: "common" }))).toMatch(/tenant/);
  });

  it("discord(): reads verified, the global name and the avatar", async () => {
    const profile = await discord(creds).mapProfile(
      {
        id: "80351110224678912",
        email: "nelly@discord.example",
        verified: true,
        global_name: "Nelly",
        avatar: "8342729096ea3675442027381ff50dfe",
      },
      { accessToken: "t", fetchJson: async () => null },
    );
    expect(profile).toEqual({
      id: "80351110224678912",
      email: "nelly@discord.example",
      emailVerified: true,
      name: "Nelly",
      image: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    });
  });
});
