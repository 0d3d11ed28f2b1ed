/**
 * The comparable form of an origin: `scheme://host[:port]` for http(s) (the URL's own `origin`), and
 * `scheme://host` for any other scheme with a host (`capacitor://localhost`, `chrome-extension://<id>`), whose
 * URL `origin` would be the opaque `"null"` that every such origin shares. Null when there is no origin to
 * compare: not a URL, no host (`file:`, `data:`), or the literal `null` a sandboxed page sends.
 *
 * @example
 * originOf("capacitor://localhost/app") // "capacitor://localhost"
 * originOf("chrome-extension://abc")    // "chrome-extension://abc"
 * originOf("null")                      // null
 */
export function originOf(value: string | undefined | null): string | null {
  if (!value || value === "null") return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  if (url.host === "") return null;
  return `${url.protocol}//${url.host.toLowerCase()}`;
}
