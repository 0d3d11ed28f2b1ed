import { writeFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generatedSource } from "./source.ts";

const target = fileURLToPath(new URL("../src/generated/api.ts", import.meta.url));
mkdirSync(fileURLToPath(new URL("../src/generated/", import.meta.url)), { recursive: true });
writeFileSync(target, await generatedSource());
console.log(`wrote ${target}`);
