// Writes docs/options.md's option tables from the option schemas (packages/core/src/config/schema.ts): one row
// per option with its name, its type (the schema's type argument), its default (the schema's default, or the
// option's `@defaultValue` JSDoc tag when the default is not a literal) and its notes (the option's JSDoc).
//
//   node scripts/options-docs.mjs           rewrite the tables between the `<!-- options-table:<id> -->` markers
//   node scripts/options-docs.mjs --check   exit 1 when the committed docs/options.md differs
//
// It reads the sources (no build needed); the test packages/hono-adapter/src/options-docs.test.ts runs the check.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DOC = "docs/options.md";
export const FIX_COMMAND = "node scripts/options-docs.mjs";

/** Each table: its marker id, the prefix of its option names, and the schemas (exported consts) it lists. */
const TABLES = [
  { id: "createAuth", prefix: "", schemas: ["AUTH_SCHEMA", "ADAPTER_SCHEMA"] },
  { id: "emailOtp", prefix: "emailOtp", schemas: ["EMAIL_OTP_SCHEMA"] },
  { id: "magicLink", prefix: "magicLink", schemas: ["MAGIC_LINK_SCHEMA"] },
  { id: "twoFactor", prefix: "twoFactor", schemas: ["TWO_FACTOR_SCHEMA"] },
  { id: "oauth", prefix: "oauth", schemas: ["OAUTH_SCHEMA"] },
  { id: "passkeys", prefix: "passkeys", schemas: ["PASSKEYS_SCHEMA"] },
  { id: "admin", prefix: "admin", schemas: ["ADMIN_SCHEMA"] },
  { id: "organizations", prefix: "organizations", schemas: ["ORGANIZATIONS_SCHEMA"] },
  { id: "jwt", prefix: "jwt", schemas: ["JWT_SCHEMA"] },
  { id: "apiKeys", prefix: "apiKeys", schemas: ["API_KEYS_SCHEMA"] },
  { id: "auditLog", prefix: "auditLog", schemas: ["AUDIT_LOG_SCHEMA"] },
];
const SOURCE_DIRS = ["packages/core/src", "packages/hono-adapter/src"];
const FACTORIES = new Set(["optional", "defaulted", "required"]);

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

/** Every top-level `const NAME = { ... }` of the sources, by name (wrappers such as `as const` skipped). */
function objectConsts() {
  const found = new Map();
  for (const file of SOURCE_DIRS.flatMap(sourceFiles)) {
    const text = readFileSync(join(ROOT, file), "utf8");
    if (!text.includes("{")) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer && unwrap(declaration.initializer);
        if (ts.isIdentifier(declaration.name) && init && ts.isObjectLiteralExpression(init))
          found.set(declaration.name.text, init);
      }
    }
  }
  return found;
}

function unwrap(node) {
  while (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node))
    node = node.expression;
  return node;
}

const oneLine = (text) => text.replace(/\s+/g, " ").trim();
const cell = (text) => oneLine(text).replace(/\|/g, "\\|");

function jsDoc(node) {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const doc = docs[docs.length - 1];
  if (!doc) return { notes: "", defaultValue: null };
  const tag = doc.tags?.find((t) => t.tagName.text === "defaultValue");
  return {
    notes: oneLine(ts.getTextOfJSDocComment(doc.comment) ?? ""),
    defaultValue: tag ? oneLine(ts.getTextOfJSDocComment(tag.comment) ?? "") : null,
  };
}

function rowsOf(literal, path, consts, out) {
  const resolve = (node) => {
    const n = unwrap(node);
    if (ts.isObjectLiteralExpression(n)) return n;
    const found = ts.isIdentifier(n) ? consts.get(n.text) : undefined;
    if (!found) throw new Error(`${path}: cannot read the schema ${n.getText()}`);
    return found;
  };
  for (const property of literal.properties) {
    if (!ts.isPropertyAssignment(property)) throw new Error(`${path}: ${property.getText()} is not "name: option"`);
    const name = property.name.getText().replace(/^"(.*)"$/, "$1");
    const full = path === "" ? name : `${path}.${name}`;
    const call = unwrap(property.initializer);
    if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression))
      throw new Error(`${full}: write it with optional<T>(), defaulted<T>(), required<T>(), flag() or group()`);
    const factory = call.expression.text;
    if (factory === "group") {
      rowsOf(resolve(call.arguments[0]), full, consts, out);
      continue;
    }
    if (factory === "flag") {
      // flag(value): a boolean with a default that refuses null.
      const { notes, defaultValue } = jsDoc(property);
      out.push(
        `| \`${full}\` | \`boolean\` | ${cell(defaultValue ?? `\`${call.arguments[0].getText()}\``)} | ${cell(notes)} |`,
      );
      continue;
    }
    if (!FACTORIES.has(factory) || !call.typeArguments?.[0]) throw new Error(`${full}: ${factory} needs <Type>`);
    const spec = call.arguments.length > (factory === "defaulted" ? 1 : 0) ? resolve(call.arguments.at(-1)) : null;
    const specKey = (key) => spec?.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === key);
    const { notes, defaultValue } = jsDoc(property);
    const fallback =
      factory === "defaulted"
        ? `\`${oneLine(call.arguments[0].getText())}\``
        : factory === "required"
          ? "required"
          : "none";
    const row = (option) =>
      out.push(
        `| \`${option}\` | \`${cell(call.typeArguments[0].getText())}\` | ${cell(defaultValue ?? fallback)} | ${cell(notes)} |`,
      );
    if (specKey("names")) row(`${full}["<name>"]`);
    else if (specKey("each")) {
      row(`${full}["<path>"]`);
      rowsOf(resolve(specKey("each").initializer), `${full}["<path>"]`, consts, out);
    } else {
      row(full);
      if (specKey("fields")) rowsOf(resolve(specKey("fields").initializer), full, consts, out);
    }
  }
}

/** The Markdown table of one marker id. */
function table(id, consts) {
  const spec = TABLES.find((t) => t.id === id);
  if (!spec) throw new Error(`${DOC}: no table "${id}" (known: ${TABLES.map((t) => t.id).join(", ")})`);
  const rows = ["| option | type | default | notes |", "|---|---|---|---|"];
  for (const name of spec.schemas) {
    const literal = consts.get(name);
    if (!literal) throw new Error(`no schema ${name} in ${SOURCE_DIRS.join(", ")}`);
    rowsOf(literal, spec.prefix, consts, rows);
  }
  return rows.join("\n");
}

/** `text` (docs/options.md) with every marked table regenerated from the schemas. */
export function generateOptionsDoc(text) {
  const consts = objectConsts();
  return text.replace(
    /(<!-- options-table:(\w+) -->\n)[\s\S]*?(\n<!-- \/options-table:\2 -->)/g,
    (_, open, id, close) => `${open}${table(id, consts)}${close}`,
  );
}

/** The committed docs/options.md and what the schemas give. */
export function optionsDoc() {
  const committed = readFileSync(join(ROOT, DOC), "utf8");
  return { committed, generated: generateOptionsDoc(committed) };
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === "") {
  const { committed, generated } = optionsDoc();
  if (process.argv.includes("--check")) {
    if (committed !== generated) {
      console.error(`${DOC} is out of date with the option schemas: run \`${FIX_COMMAND}\``);
      process.exit(1);
    }
  } else if (committed !== generated) {
    writeFileSync(join(ROOT, DOC), generated);
    console.log(`${DOC}: tables regenerated`);
  }
}
