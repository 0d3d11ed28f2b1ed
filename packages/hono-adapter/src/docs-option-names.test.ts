import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  API_KEYS_OPTION_SHAPE,
  AUDIT_LOG_OPTION_SHAPE,
  AUTH_OPTION_SHAPE,
  EACH,
  EMAIL_OTP_OPTION_SHAPE,
  JWT_OPTION_SHAPE,
  MAGIC_LINK_OPTION_SHAPE,
  TWO_FACTOR_OPTION_SHAPE,
  OAUTH_OPTION_SHAPE,
  PASSKEYS_OPTION_SHAPE,
  ADMIN_OPTION_SHAPE,
  ORGANIZATIONS_OPTION_SHAPE,
  type OptionShape,
} from "@latchkey/core";
import { ADAPTER_OPTION_SHAPE } from "./create-auth.ts";

// The READMEs and docs show createAuth and the plugins in code: every option name those examples pass must be one
// the code accepts (createAuth would refuse the example with an AuthConfigError otherwise). docs/options.md's
// tables are compared with the shapes in create-auth-options.test.ts; this covers the prose examples.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const SHAPES: Record<string, OptionShape> = {
  createAuth: { ...AUTH_OPTION_SHAPE, ...ADAPTER_OPTION_SHAPE },
  emailOtp: EMAIL_OTP_OPTION_SHAPE,
  magicLink: MAGIC_LINK_OPTION_SHAPE,
  twoFactor: TWO_FACTOR_OPTION_SHAPE,
  oauth: OAUTH_OPTION_SHAPE,
  passkeys: PASSKEYS_OPTION_SHAPE,
  admin: ADMIN_OPTION_SHAPE,
  organizations: ORGANIZATIONS_OPTION_SHAPE,
  apiKeys: API_KEYS_OPTION_SHAPE,
  jwt: JWT_OPTION_SHAPE,
  auditLog: AUDIT_LOG_OPTION_SHAPE,
};

function markdownFiles(): string[] {
  const files = ["README.md"];
  for (const dir of ["packages", "examples"])
    for (const name of readdirSync(join(ROOT, dir)))
      if (existsSync(join(ROOT, dir, name, "README.md"))) files.push(`${dir}/${name}/README.md`);
  for (const name of readdirSync(join(ROOT, "docs"))) if (name.endsWith(".md")) files.push(`docs/${name}`);
  return files;
}

/** The fenced TypeScript and JavaScript blocks of a Markdown text. */
function codeBlocks(text: string): string[] {
  return [...text.matchAll(/```(?:ts|tsx|typescript|js|mjs|javascript)\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

function propertyName(name: ts.PropertyName): string | null {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name)) return name.text;
  return null;
}

/** The option paths of `literal` that `shape` does not accept (nested literals checked against nested shapes). */
function unknownOptions(literal: ts.ObjectLiteralExpression, shape: OptionShape, path: string): string[] {
  const out: string[] = [];
  for (const property of literal.properties) {
    if (ts.isSpreadAssignment(property) || !property.name) continue;
    const name = propertyName(property.name);
    if (name === null) continue;
    const each = shape[EACH];
    const rule = each ?? shape[name];
    const at = path ? `${path}.${name}` : name;
    if (rule === undefined) {
      out.push(at);
      continue;
    }
    if (rule !== true && ts.isPropertyAssignment(property) && ts.isObjectLiteralExpression(property.initializer))
      out.push(...unknownOptions(property.initializer, rule, at));
  }
  return out;
}

interface Call {
  file: string;
  callee: string;
  unknown: string[];
}

function optionCalls(file: string): Call[] {
  const calls: Call[] = [];
  for (const block of codeBlocks(readFileSync(join(ROOT, file), "utf8"))) {
    const source = ts.createSourceFile("example.tsx", block, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
        const shape = SHAPES[node.expression.text];
        const [first] = node.arguments;
        if (shape && first && ts.isObjectLiteralExpression(first))
          calls.push({ file, callee: node.expression.text, unknown: unknownOptions(first, shape, "") });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return calls;
}

describe("the option names in the READMEs' and docs' examples exist", () => {
  const calls = markdownFiles().flatMap(optionCalls);

  it("every createAuth({ ... }) and plugin({ ... }) example passes only options the code accepts", () => {
    expect(
      calls.filter((c) => c.unknown.length > 0).map((c) => `${c.file}: ${c.callee}({ ${c.unknown.join(", ")} })`),
    ).toEqual([]);
  });

  it("reads the examples it is meant to read", () => {
    const files = new Set(calls.filter((c) => c.callee === "createAuth").map((c) => c.file));
    for (const file of ["README.md", "packages/redis-store/README.md", "docs/stores.md", "examples/nextjs/README.md"])
      expect(files, file).toContain(file);
  });

  it("the check itself flags a misspelt option, nested ones included", () => {
    const source = ts.createSourceFile(
      "x.ts",
      "createAuth({ secret, baseURL: 'x', cookies: { secure: false, secur: true }, rateLimit: { rules: { '/a': { max: 1, windw: '1m' } } } });",
      ts.ScriptTarget.Latest,
      true,
    );
    const call = (source.statements[0] as ts.ExpressionStatement).expression as ts.CallExpression;
    expect(unknownOptions(call.arguments[0] as ts.ObjectLiteralExpression, SHAPES.createAuth!, "")).toEqual([
      "baseURL",
      "cookies.secur",
      "rateLimit.rules./a.windw",
    ]);
  });
});
