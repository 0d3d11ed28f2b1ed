export { jwt, JwtService, RESERVED_CLAIMS } from "./jwt.ts";
export type { JwtSettings, JwtApi } from "./jwt.ts";
export { resolveJwtOptions, JWT_OPTION_SHAPE } from "./options.ts";
export type {
  JwtOptions,
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
