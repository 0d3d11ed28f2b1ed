/**
 * Client addresses as the rate limiter keys them: parsed strictly (an entry that is not an IP address is no
 * address), then bucketed by the address a client controls (IPv4 /32, IPv6 /64) and by the network around it
 * (IPv4 /24, IPv6 /48).
 */

/** A parsed address: four octets, or eight 16-bit groups. */
type ParsedIp = { version: 4; octets: number[] } | { version: 6; groups: number[] };

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseIpv4(text: string): number[] | null {
  const m = IPV4.exec(text);
  if (!m) return null;
  const octets = m.slice(1, 5).map(Number);
  // No leading zeros ("010" is octal to some parsers, decimal to others): not an address.
  if (m.slice(1, 5).some((part) => part.length > 1 && part.startsWith("0"))) return null;
  return octets.every((o) => o <= 255) ? octets : null;
}

function parseIpv6(text: string): number[] | null {
  const zoneless = text.split("%")[0]!;
  if (zoneless === "") return null;
  let body = zoneless;
  // A trailing dotted quad (`::ffff:203.0.113.9`) stands for the last two groups.
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(":");
  if (body.includes(".")) {
    const quad = parseIpv4(body.slice(lastColon + 1));
    if (!quad) return null;
    tail = [(quad[0]! << 8) | quad[1]!, (quad[2]! << 8) | quad[3]!];
    body = body.slice(0, lastColon);
    // `::1.2.3.4` and `1::1.2.3.4`: the colon before the quad belongs to a `::`.
    if (body.endsWith(":")) body = `${body}:`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const groups = part.split(":");
    const out: number[] = [];
    for (const g of groups) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if (!left || !right) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 1) return given === 8 ? [...left, ...tail] : null;
  if (given > 7) return null;
  return [...left, ...Array<number>(8 - given).fill(0), ...right, ...tail];
}

/**
 * Parses one address: IPv4 (`203.0.113.9`), IPv6 in any notation (`2001:db8::1`, `::ffff:203.0.113.9`, a zone
 * `%eth0` ignored), each optionally bracketed; null for anything else. An IPv4-mapped IPv6 address is its IPv4.
 *
 * @example
 * parseIp("::ffff:203.0.113.9"); // { version: 4, octets: [203, 0, 113, 9] }
 * parseIp("unknown"); // null
 */
export function parseIp(text: string): ParsedIp | null {
  let v = text.trim().toLowerCase();
  if (v.startsWith("[") && v.endsWith("]")) v = v.slice(1, -1);
  if (v === "" || v.length > 64) return null;
  if (!v.includes(":")) {
    const octets = parseIpv4(v);
    return octets ? { version: 4, octets } : null;
  }
  const groups = parseIpv6(v);
  if (!groups) return null;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return { version: 4, octets: [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255] };
  return { version: 6, groups };
}

/**
 * The address in one forwarding entry, or null when the entry is not an address: `X-Forwarded-For` entries
 * (`203.0.113.6`, `203.0.113.6:40001`, `2001:db8::1`, `[2001:db8::1]:443`) and RFC 7239 `for=` values (quoted or
 * not; `unknown` and obfuscated `_identifiers` are no address). Answers the canonical text of the address, without
 * any port, so one client never becomes a new bucket per TCP connection.
 *
 * @example
 * forwardedAddress("203.0.113.6:40001"); // "203.0.113.6"
 * forwardedAddress('"[2001:DB8::1]:4711"'); // "2001:db8::1"
 * forwardedAddress("unknown"); // null
 */
export function forwardedAddress(entry: string): string | null {
  let v = entry.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1).trim();
  if (v === "" || v.length > 80) return null;
  // `[IPv6]` or `[IPv6]:port`.
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(v);
  if (bracketed) return canonical(parseIp(bracketed[1]!), bracketed[2]);
  // `IPv4:port` (a bare IPv6 address has more than one colon).
  const withPort = /^([\d.]+):(\d{1,5})$/.exec(v);
  if (withPort) return canonical(parseIp(withPort[1]!), withPort[2]);
  return canonical(parseIp(v), undefined);
}

function canonical(ip: ParsedIp | null, port: string | undefined): string | null {
  if (!ip) return null;
  if (port !== undefined && Number(port) > 65_535) return null;
  if (ip.version === 4) return ip.octets.join(".");
  return ip.groups.map((g) => g.toString(16)).join(":");
}

/**
 * The two rate-limit buckets of a client address: the address a client controls (IPv4 as is, IPv6 by its /64: one
 * host owns a whole /64) and its enclosing network (IPv4 /24, IPv6 /48: one hosting account, one cheap range).
 * Null when the text is not an address.
 *
 * @example
 * ipBuckets("2001:db8:1:2::9"); // { address: "2001:db8:1:2::/64", network: "2001:db8:1::/48" }
 * ipBuckets("203.0.113.9"); // { address: "203.0.113.9", network: "203.0.113.0/24" }
 */
export function ipBuckets(text: string): { address: string; network: string } | null {
  const ip = parseIp(text);
  if (!ip) return null;
  if (ip.version === 4) {
    const [a, b, c] = ip.octets;
    return { address: ip.octets.join("."), network: `${a}.${b}.${c}.0/24` };
  }
  const hex = ip.groups.map((g) => g.toString(16));
  return { address: `${hex.slice(0, 4).join(":")}::/64`, network: `${hex.slice(0, 3).join(":")}::/48` };
}
