export { magicLink, MAGIC_LINK_PLUGIN_ID } from "./plugin.ts";
export type { MagicLinkApi, MagicLinkInstalled, MagicLinkPlugin } from "./plugin.ts";
export { MAGIC_LINK_SCHEMA, MAGIC_LINK_OPTION_SHAPE } from "./options.ts";
export type { MagicLinkOptions, ResolvedMagicLinkOptions } from "./options.ts";
export { MagicLinkService } from "./magic-link.ts";
export type { MagicLinkSignIn, SendMagicLinkInput, VerifyMagicLinkInput } from "./magic-link.ts";
