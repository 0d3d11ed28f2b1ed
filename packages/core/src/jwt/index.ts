export { jwt, JWT_PLUGIN_ID } from "./plugin.ts";
export type { JwtApi, JwtInstalled, JwtPlugin } from "./plugin.ts";
export type { JwtOptions, JwtPayloadBuilder } from "./options.ts";
export { JwtService, RESERVED_CLAIMS } from "./jwt.ts";
export type { JwtSettings } from "./jwt.ts";
export { resolveJwtOptions, JWT_SCHEMA, JWT_OPTION_SHAPE } from "./options.ts";
export type {
  ResolvedJwtOptions,
  JwtAlgorithm,
  JwsAlgorithm,
  JwtHeader,
  JwtClaims,
  PublicJwk,
  JsonWebKeySet,
  JwtPayloadContext,
  JwtSigner,
  JwtSignerFactory,
} from "./options.ts";
export { KeyEnvelope } from "./key-envelope.ts";
