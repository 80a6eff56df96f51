/**
 * Dubbo's IP expressions for tag-rule addresses: exact `ip[:port]`, `*` segments, `a-b` segment
 * ranges, CIDR (`10.0.0.0/8`, port ignored), `*` / `*.*.*.*`. IPv4 only. Throws on a malformed
 * pattern, as Dubbo does (the tag router catches it and skips the pattern).
 * Follows dubbo-common `utils/NetUtils.java` (`matchIpExpression`, `matchIpRange`) and `utils/CIDRUtils.java`.
 */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function ipv4ToInt(ip: string): number | undefined {
  const m = IPV4.exec(ip);
  if (m === null) return undefined;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const seg = Number(m[i]);
    if (seg > 255) return undefined;
    n = n * 256 + seg;
  }
  return n;
}

// Java String.split(regex) with limit 0: trailing empty strings are dropped.
function javaSplit(text: string, separator: string): string[] {
  const parts = text.split(separator);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

// Integer.parseInt: an optional sign and digits, else NumberFormatException (here NaN: the caller says what was wrong).
function javaInt(text: string): number {
  return /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
}

function parseJavaInt(text: string): number {
  const n = javaInt(text);
  if (Number.isNaN(n)) throw new Error(`There is wrong format of ip Address: ${text}`);
  return n;
}

function inCidr(pattern: string, host: string): boolean {
  const slash = pattern.indexOf('/');
  const base = ipv4ToInt(pattern.slice(0, slash));
  // CIDRUtils: Integer.parseInt(prefix), so "/", "/0x8" and "/ 8" are malformed (Number() would read 0, 8 and 8).
  const bits = javaInt(pattern.slice(slash + 1));
  if (base === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) {
    throw new Error(`invalid CIDR: ${pattern}`);
  }
  const ip = ipv4ToInt(host);
  // DIVERGENCE: Dubbo resolves a host name through DNS; the simulation has IPv4 literals only.
  if (ip === undefined) return false;
  const size = 2 ** (32 - bits);
  const start = Math.floor(base / size) * size;
  return ip >= start && ip < start + size;
}

/** NetUtils.matchIpExpression(pattern, host, port) for IPv4 hosts. */
export function matchIpExpression(pattern: string, host: string, port: number): boolean {
  if (pattern.includes('/')) return inCidr(pattern.trim(), host);
  return matchIpRange(pattern, host, port);
}

/** NetUtils.matchIpRange: `*` segments, `a-b` ranges, an optional `:port` that must equal the port. */
export function matchIpRange(patternText: string, host: string, port: number): boolean {
  let pattern = patternText.trim();
  if (pattern === '*.*.*.*' || pattern === '*') return true;
  const hostIsIpv4 = ipv4ToInt(host) !== undefined;
  if (!hostIsIpv4) {
    // DIVERGENCE: no DNS and no IPv6 in the simulation; a non-IPv4 host matches only its exact text.
    const colon = pattern.lastIndexOf(':');
    if (colon >= 0 && pattern.slice(colon + 1) !== String(port)) return false;
    return (colon >= 0 ? pattern.slice(0, colon) : pattern) === host;
  }
  const colon = pattern.indexOf(':');
  if (colon >= 0) {
    if (pattern.slice(colon + 1) !== String(port)) return false;
    pattern = pattern.slice(0, colon);
  }
  const mask = javaSplit(pattern, '.');
  if (mask.length !== 4) throw new Error(`The host is ipv4, but the pattern is not ipv4 pattern : ${pattern}`);
  if (pattern === host) return true;
  if (!pattern.includes('*') && !pattern.includes('-')) {
    // InetAddress.getByName(pattern): an IPv4 literal compares numerically ("10.0.0.01" is 10.0.0.1).
    const p = ipv4ToInt(pattern);
    return p !== undefined && p === ipv4ToInt(host);
  }
  const ipAddress = host.split('.');
  for (let i = 0; i < mask.length; i++) {
    const m = mask[i]!;
    const seg = ipAddress[i]!;
    if (m === '*' || m === seg) continue;
    if (m.includes('-')) {
      const range = m.split('-');
      if (range.length !== 2) throw new Error(`There is wrong format of ip Address: ${m}`);
      const min = parseJavaInt(range[0]!);
      const max = parseJavaInt(range[1]!);
      const ip = parseJavaInt(seg);
      if (ip < min || ip > max) return false;
    } else if (seg === '0' && (m === '0' || m === '00' || m === '000' || m === '0000')) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}
