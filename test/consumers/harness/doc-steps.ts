import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { printed, run, start, waitForHttp, type Packs, type RunResult, type Started } from "./projects.ts";

/** One fenced block of a docs page: shell commands to run, a server to start, or a file to save. */
export type DocStep =
  | { kind: "sh"; script: string }
  | { kind: "server"; script: string }
  | { kind: "file"; name: string; content: string };

/**
 * The steps of a page, in order: ```sh blocks run, ```sh server blocks start a long-running process, and blocks
 * with `file=<name>` in their info string are saved under that name. Other blocks are prose.
 */
export function docSteps(markdown: string): DocStep[] {
  const steps: DocStep[] = [];
  for (const match of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const info = (match[1] ?? "").trim().split(/\s+/);
    const body = match[2] ?? "";
    const file = info.find((w) => w.startsWith("file="));
    if (file) steps.push({ kind: "file", name: file.slice("file=".length), content: body });
    else if (info[0] === "sh") steps.push({ kind: info[1] === "server" ? "server" : "sh", script: body });
  }
  return steps;
}

/** The Latchkey packages `names` need, themselves included (their required dependencies, from the workspace). */
function latchkeyClosure(names: string[]): Set<string> {
  const manifests = new Map<string, { dependencies?: Record<string, string> }>();
  const packagesDir = fileURLToPath(new URL("../../../packages/", import.meta.url));
  for (const entry of readdirSync(packagesDir)) {
    const file = join(packagesDir, entry, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name: string; dependencies?: Record<string, string> };
    manifests.set(manifest.name, manifest);
  }
  const found = new Set<string>();
  const visit = (name: string) => {
    if (found.has(name)) return;
    found.add(name);
    for (const dep of Object.keys(manifests.get(name)?.dependencies ?? {}))
      if (dep.startsWith("@latchkey/")) visit(dep);
  };
  for (const name of names) visit(name);
  return found;
}

/** What running a page left: each sh block's result, in order, and the server it started. */
export interface DocRun {
  results: RunResult[];
  server: Started | null;
  cwd: string;
}

/**
 * Runs a page's steps as a reader would, in one working directory that a `cd` in a block carries to the next,
 * starting in `dir`. The only rewrites: `npm install @latchkey/x` installs the packed tarball of `@latchkey/x` (they
 * are not on the registry), and `localhost:3000` is `localhost:<port>` (a free port; the server gets it as PORT).
 */
export async function runDocSteps(steps: DocStep[], dir: string, packs: Packs, port: number): Promise<DocRun> {
  let cwd = dir;
  const results: RunResult[] = [];
  let server: Started | null = null;
  const rewrite = (script: string) =>
    script
      .replace(/^(npm install .*)$/gm, (line) => {
        const named: string[] = line.match(/@latchkey\/[a-z-]+/g) ?? [];
        // What the registry would bring along (`@latchkey/cli` needs `@latchkey/drizzle-store`) comes from the packs too.
        const extra = [...latchkeyClosure(named)].filter((name) => !named.includes(name));
        const tarball = (name: string) => {
          const path = packs[name];
          if (!path) throw new Error(`the page installs ${name}, which is not a packed package`);
          return path;
        };
        return [line.replace(/@latchkey\/[a-z-]+/g, tarball), ...extra.map(tarball)].join(" ");
      })
      .replaceAll("localhost:3000", `localhost:${port}`);
  const env = {
    PORT: String(port),
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
  };
  for (const step of steps) {
    if (step.kind === "file") {
      writeFileSync(join(cwd, step.name), step.content);
      continue;
    }
    if (step.kind === "server") {
      server = start("bash", ["-c", `set -e\n${rewrite(step.script)}`], { cwd, env });
      await waitForHttp(`http://localhost:${port}/auth/get-session`, server, 60_000);
      continue;
    }
    // `set -e`: a failing command fails the step; the last line records where a `cd` left the reader.
    const marker = join(dir, ".doc-cwd");
    const result = await run("bash", ["-c", `set -e\n${rewrite(step.script)}\npwd > '${marker}'`], {
      cwd,
      env,
      timeoutMs: 420_000,
    });
    results.push(result);
    if (result.code !== 0) throw new Error(`a step of the page failed:\n${step.script}\n${printed(result)}`);
    cwd = readFileSync(marker, "utf8").trim();
  }
  return { results, server, cwd };
}
