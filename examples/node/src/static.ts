import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context } from "hono";

/** Where `pnpm --filter @latchkey/example-node build` (Vite) puts the demo's pages. */
export const WEB_ROOT = fileURLToPath(new URL("../dist-web/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".map": "application/json",
};

/**
 * Serves the built pages: files by path, and `page` (the app's index.html) for every other GET, so links in
 * emails (`/reset-password?token=...`, `/verify-email?...`, `/delete-account/confirm?...`) open the app.
 */
export function webPages(root = WEB_ROOT, page = "index.html", options: { apiOrigins?: string[] } = {}) {
  // A page that talks to an API on another origin (spa.html) lists the origins it may use in a meta tag; the
  // server serving it fills them in, so a link's query string can never add one.
  const html = (body: Buffer<ArrayBuffer>): string | Buffer<ArrayBuffer> => {
    if (!options.apiOrigins) return body;
    const list = options.apiOrigins.map((o) => new URL(o).origin).join(",");
    return body
      .toString("utf8")
      .replace(
        /(<meta name="latchkey-api-origins" content=")[^"]*(")/,
        (_, start: string, end: string) => `${start}${list}${end}`,
      );
  };
  return async (c: Context): Promise<Response> => {
    const path = decodeURIComponent(new URL(c.req.url).pathname);
    const file = normalize(join(root, path));
    if (!file.startsWith(root.endsWith(sep) ? root : root + sep)) return c.notFound();
    if (extname(path) !== "") {
      try {
        const body = extname(path) === ".html" ? html(await readFile(file)) : await readFile(file);
        const immutable = path.startsWith("/assets/");
        return new Response(body, {
          headers: {
            "content-type": TYPES[extname(path)] ?? "application/octet-stream",
            "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
          },
        });
      } catch {
        return c.notFound();
      }
    }
    try {
      return new Response(html(await readFile(join(root, page))), {
        headers: { "content-type": TYPES[".html"]!, "cache-control": "no-cache" },
      });
    } catch {
      return c.text(
        "The demo's pages are not built: run `pnpm --filter @latchkey/example-node build` (pnpm demo does it).",
        503,
      );
    }
  };
}
