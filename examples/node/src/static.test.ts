import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { webPages } from "./static.ts";

// Review fix 23: spa.html took its API origin from `?api=`, so a crafted link made it post the typed password to
// any server. The page now uses only the origins its own server lists in the `latchkey-api-origins` meta; this
// file checks the server half (the browser half is in browser-sessions.test.ts, "a page on another origin").

const SPA_SOURCE = fileURLToPath(new URL("../web/spa.html", import.meta.url));

async function site(apiOrigins?: string[]) {
  const root = await mkdtemp(join(tmpdir(), "latchkey-spa-"));
  await writeFile(join(root, "spa.html"), await readFile(SPA_SOURCE));
  return new Hono().get("*", webPages(`${root}/`, "spa.html", apiOrigins ? { apiOrigins } : {}));
}

const metaOf = (html: string) => /<meta name="latchkey-api-origins" content="([^"]*)"/.exec(html)?.[1];

describe("spa.html's API origins", () => {
  it("a crafted ?api= link cannot add an origin: the page lists only what its server configured", async () => {
    const app = await site(["http://127.0.0.1:4000/some/path", "https://api.example"]);
    for (const path of ["/spa.html?api=https://evil.example", "/?api=https%3A%2F%2Fevil.example", "/spa.html"]) {
      const html = await (await app.request(`http://spa.example${path}`)).text();
      expect(metaOf(html), path).toBe("http://127.0.0.1:4000,https://api.example");
      expect(html).not.toContain("evil.example");
    }
  });

  it("without configured origins the page keeps its built-in default (the local demo API)", async () => {
    const app = await site();
    expect(metaOf(await (await app.request("http://spa.example/spa.html?api=https://evil.example")).text())).toBe(
      "http://localhost:3000",
    );
  });
});
