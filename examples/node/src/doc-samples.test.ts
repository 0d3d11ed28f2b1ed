import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The code samples of README.md and docs/*.md compile under strict TypeScript against the packages' published
// types (dist: `pnpm test` builds them first), each sample a module of its own. A block marked ```ts fragment is
// an excerpt (a piece of an options object, another framework's file) and is not compiled. What a sample uses
// without defining it (`auth`, `app`, `secret`, ...) is declared once in test/doc-samples/prelude.d.ts. Lives in
// this example because its node_modules has every package the samples import.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const example = fileURLToPath(new URL("../", import.meta.url));
const scratch = join(example, "node_modules/.doc-samples");
const tsc = join(example, "node_modules/typescript/bin/tsc");
const run = promisify(execFile);

/** Every ```ts / ```tsx block of a Markdown file that is not marked `fragment`. */
function samplesOf(markdown: string): Array<{ index: number; tsx: boolean; code: string }> {
  const found: Array<{ index: number; tsx: boolean; code: string }> = [];
  let index = 0;
  for (const match of markdown.matchAll(/```((?:ts|typescript|tsx)[^\n]*)\n([\s\S]*?)```/g)) {
    const info = match[1]!;
    if (!info.includes("fragment")) found.push({ index, tsx: info.startsWith("tsx"), code: match[2]! });
    index++;
  }
  return found;
}

describe("the code samples of README.md and docs/", () => {
  it("compile under strict TypeScript (a planted mistake is caught in the same run)", {
    timeout: 180_000,
  }, async () => {
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    const docs = ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md"))];
    const written: string[] = [];
    for (const doc of docs) {
      const path = doc === "README.md" ? join(root, doc) : join(root, "docs", doc);
      for (const sample of samplesOf(readFileSync(path, "utf8"))) {
        const name = `${basename(doc, ".md")}-${sample.index}.${sample.tsx ? "tsx" : "ts"}`;
        writeFileSync(join(scratch, name), `${sample.code}\nexport {};\n`);
        written.push(name);
      }
    }
    expect(written.length).toBeGreaterThan(30);
    // The check can fail: this file's error must be the only one reported.
    writeFileSync(join(scratch, "planted.ts"), 'const planted: number = "not a number";\nexport {};\n');
    for (const name of ["prelude.d.ts", "ambient.d.ts"])
      copyFileSync(join(root, "test/doc-samples", name), join(scratch, name));
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ type: "module" }));
    // Packages this example does not depend on resolve to their built types in the workspace.
    const paths = Object.fromEntries(
      ["redis-store", "resend-sender", "store-conformance"].map((name) => [
        `@latchkey/${name}`,
        [`../../../../packages/${name}/dist/index.d.ts`],
      ]),
    );
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          jsx: "react-jsx",
          lib: ["ES2023", "DOM"],
          paths,
        },
        include: ["*.ts", "*.tsx"],
      }),
    );
    const output = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: scratch }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
    expect(
      errors.filter((line) => !line.startsWith("planted.ts")),
      output,
    ).toEqual([]);
    expect(errors).toEqual([expect.stringMatching(/^planted\.ts\(1,7\): error TS2322/)]);
  });
});
