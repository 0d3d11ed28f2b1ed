import { version } from "../package.json" with { type: "json" };

/** This package's version (`info.version` of the OpenAPI document); the build inlines it from package.json. */
export const ADAPTER_VERSION: string = version;
