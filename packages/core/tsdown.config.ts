import { defineConfig } from "tsdown";
import { libraryBuild } from "../../tsdown.shared.ts";

export default defineConfig(
  libraryBuild({
    entry: {
      index: "src/index.ts",
      internal: "src/internal.ts",
      "native-argon2.node": "src/password/native-argon2.node.ts",
      "native-argon2.deno": "src/password/native-argon2.deno.ts",
      "native-argon2.web": "src/password/native-argon2.web.ts",
      "native-jws.node": "src/jwt/native-jws.node.ts",
      "native-jws.web": "src/jwt/native-jws.web.ts",
      "native-sha256.node": "src/crypto/native-sha256.node.ts",
      "native-sha256.web": "src/crypto/native-sha256.web.ts",
    },
    // Shared chunks apart from the entries, so that a chunk named after its first module (`index`) never takes an
    // entry's file name (the entry then became `index2.d.ts` and `types` pointed at the chunk).
    outputOptions: { chunkFileNames: "chunks/[name].js" },
  }),
);
