import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { applySchema, defaulted, flag, optional, shapeOf, type InputOf } from "../config/schema.ts";
import type { EmailTemplates } from "../email/email.ts";

/** The built-in `magic-link.*` templates (variables: `url`, `email`, `expiresInMinutes`, `appName`). */
const MAGIC_LINK_TEMPLATES: EmailTemplates = {
  "magic-link.subject": "Sign in to {{appName}}",
  "magic-link.txt":
    "Open this link to sign in to {{appName}}:\n\n{{url}}\n\nThe link works once and expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this email.",
  "magic-link.html":
    '<p>Open this link to sign in to {{appName}}.</p><p><a href="{{url}}">Sign in</a></p><p>The link works once and expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this email.</p>',
};

const TEMPLATE_NAMES = Object.keys(MAGIC_LINK_TEMPLATES);

/**
 * Options with defaults filled and durations in milliseconds.
 *
 * @example
 * const { expiresInMs } = resolveMagicLinkOptions({ expiresIn: "10m" }); // 600000
 */
export interface ResolvedMagicLinkOptions {
  expiresInMs: number;
  allowSignUp: boolean;
  /** The app's confirm page the emailed link opens (with `?token=&callbackURL=`), or null: the built-in page. */
  confirmURL: string | null;
  templates: EmailTemplates;
}

/** The one definition of `magicLink({...})`'s options: type, default, check, docs row (docs/options.md). */
export const MAGIC_LINK_SCHEMA = {
  /** lifetime of each link (1 minute..1 hour); a new request replaces the link sent before */
  expiresIn: defaulted<Duration>("5m", {
    check: (value, field) => {
      const ms = parseDuration(value, field);
      if (ms < 60_000 || ms > 3_600_000) throw new AuthConfigError(field, "must be between 1 minute and 1 hour");
    },
  }),
  /** `false`: unknown emails get no link (the answer is the same `{success: true}`) and no user is created */
  allowSignUp: flag(true),
  /**
   * a page of your app the emailed link opens instead of the built-in confirm page (`GET /magic-link/verify`),
   * with `?token=&callbackURL=`; it POSTs them to `/magic-link/verify`. A path on `baseUrl` or a URL on a trusted
   * origin
   * @defaultValue the built-in page
   */
  confirmURL: optional<string>({
    check: (value, field) => {
      if (typeof value !== "string" || value === "") throw new AuthConfigError(field, "must be a path or a URL");
    },
  }),
  /**
   * `magic-link.subject`, `magic-link.txt`, `magic-link.html`. Variables: `url`, `email`, `expiresInMinutes`,
   * `appName`. These win over the same names in `email.templates`, which win over the built-in ones.
   * @defaultValue built in
   */
  templates: defaulted<EmailTemplates>(
    {},
    {
      names: TEMPLATE_NAMES,
      check: (templates, field) => {
        if (templates === null || typeof templates !== "object")
          throw new AuthConfigError(field, "must be an object of template sources");
        for (const [key, source] of Object.entries(templates))
          if (typeof source !== "string") throw new AuthConfigError(`${field}["${key}"]`, "must be a string");
      },
    },
  ),
};

/**
 * `magicLink({...})` options.
 *
 * @example
 * const options: MagicLinkOptions = { expiresIn: "10m", allowSignUp: false };
 */
export type MagicLinkOptions = InputOf<typeof MAGIC_LINK_SCHEMA>;

/** Every key `magicLink({...})` accepts (from `MAGIC_LINK_SCHEMA`). */
export const MAGIC_LINK_OPTION_SHAPE = shapeOf(MAGIC_LINK_SCHEMA);

/**
 * Validates `magicLink()` options and fills the defaults. Throws `AuthConfigError` naming the field.
 *
 * @example
 * resolveMagicLinkOptions({}).expiresInMs; // 300000
 */
export function resolveMagicLinkOptions(options: MagicLinkOptions = {}): ResolvedMagicLinkOptions {
  const o = applySchema(MAGIC_LINK_SCHEMA, options, "magicLink");
  return {
    expiresInMs: parseDuration(o.expiresIn, "magicLink.expiresIn"),
    allowSignUp: o.allowSignUp,
    confirmURL: o.confirmURL ?? null,
    templates: o.templates,
  };
}

/**
 * The template sources of the magic-link email, most specific first: the plugin's, `email.templates`, built in.
 *
 * @example
 * magicLinkTemplateSources({}, {})["magic-link.subject"]; // "Sign in to {{appName}}"
 */
export function magicLinkTemplateSources(plugin: EmailTemplates, global: EmailTemplates): EmailTemplates {
  const out: EmailTemplates = {};
  for (const name of TEMPLATE_NAMES) out[name] = plugin[name] ?? global[name] ?? MAGIC_LINK_TEMPLATES[name] ?? "";
  return out;
}
