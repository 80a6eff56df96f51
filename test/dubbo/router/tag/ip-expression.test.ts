/** Dubbo's IP expressions for tag-rule addresses (NetUtils.matchIpExpression), IPv4. */
import { describe, expect, it } from 'vitest';
import { matchIpExpression } from '../../../../src/dubbo/router/tag/ip-expression.js';

describe('matchIpExpression', () => {
  it.each([
    ['10.0.0.1:20880', '10.0.0.1', 20880, true],
    ['10.0.0.1:20880', '10.0.0.1', 20881, false],
    ['10.0.0.1', '10.0.0.1', 1234, true],
    ['10.0.0.01', '10.0.0.1', 1, true],
    ['10.0.*.*', '10.0.7.9', 1, true],
    ['10.0.*.*', '10.1.7.9', 1, false],
    ['10.0.1-5.*:20880', '10.0.3.9', 20880, true],
    ['10.0.1-5.*:20880', '10.0.6.9', 20880, false],
    ['*', '192.168.1.1', 80, true],
    ['*.*.*.*', '192.168.1.1', 80, true],
    ['10.10.0.0/16', '10.10.200.3', 80, true],
    ['10.10.0.0/16', '10.11.0.3', 80, false],
    ['10.0.0.000', '10.0.0.0', 1, true],
  ] as const)('%s against %s:%d is %s', (pattern, host, port, expected) => {
    expect(matchIpExpression(pattern, host, port)).toBe(expected);
  });

  it('throws on a pattern that is not four segments', () => {
    expect(() => matchIpExpression('10.0.*', '10.0.0.1', 1)).toThrow(/not ipv4 pattern/);
  });

  it('throws on a malformed segment range', () => {
    expect(() => matchIpExpression('10.0.1-2-3.*', '10.0.0.1', 1)).toThrow(/wrong format/);
  });
});

// dubbo-common NetUtilsTest (testMatchIpRangeMatchWhenIpv4, testMatchIpv4WithIpPort, testMatchIpMatch) and
// CIDRUtilsTest.testIpv4, the IPv4 cases, copied as data.
const DUBBO_NET_UTILS_CASES: readonly (readonly [string, string, number, boolean])[] = [
  ['*.*.*.*', '192.168.1.63', 90, true],
  ['192.168.1.*', '192.168.1.63', 90, true],
  ['192.168.1.63', '192.168.1.63', 90, true],
  ['192.168.1.1-65', '192.168.1.63', 90, true],
  ['192.168.1.1-61', '192.168.1.63', 90, false],
  ['192.168.1.62', '192.168.1.63', 90, false],
  ['*.*.*.*:90', '192.168.1.63', 90, true],
  ['192.168.1.*:90', '192.168.1.63', 90, true],
  ['192.168.1.63:90', '192.168.1.63', 90, true],
  ['192.168.1.63-65:90', '192.168.1.63', 90, true],
  ['192.168.1.1-63:90', '192.168.1.63', 90, true],
  ['*.*.*.*:80', '192.168.1.63', 90, false],
  ['192.168.1.*:80', '192.168.1.63', 90, false],
  ['192.168.1.63:80', '192.168.1.63', 90, false],
  ['192.168.1.63-65:80', '192.168.1.63', 90, false],
  ['192.168.1.1-63:80', '192.168.1.63', 90, false],
  ['192.168.1.1-61:90', '192.168.1.62', 90, false],
  ['192.168.1.62:90', '192.168.1.63', 90, false],
  ['192.168.1.192/26', '192.168.1.199', 90, true],
  ['192.168.1.0/26', '192.168.1.63', 90, true],
  ['192.168.1.0/26', '192.168.1.65', 90, false],
  ['192.168.1.192/26', '192.168.1.190', 90, false],
];

describe("matchIpExpression on Dubbo's NetUtils and CIDRUtils test cases", () => {
  it.each(DUBBO_NET_UTILS_CASES)('%s against %s:%d is %s', (pattern, host, port, expected) => {
    expect(matchIpExpression(pattern, host, port)).toBe(expected);
  });

  it('throws on a range with three bounds (192.168.1.1-65-3)', () => {
    expect(() => matchIpExpression('192.168.1.1-65-3', '192.168.1.63', 90)).toThrow(/wrong format of ip Address: 1-65-3/);
  });

  it('throws on a CIDR pattern that carries a port (192.168.1.192/26:90)', () => {
    expect(() => matchIpExpression('192.168.1.192/26:90', '192.168.1.199', 90)).toThrow(/invalid CIDR/);
  });
});

describe('matchIpExpression with CIDR patterns', () => {
  it.each([
    // A /26 block starting at .128: .128 to .191 inclusive.
    ['10.1.2.128/26', '10.1.2.128', true],
    ['10.1.2.128/26', '10.1.2.191', true],
    ['10.1.2.128/26', '10.1.2.127', false],
    ['10.1.2.128/26', '10.1.2.192', false],
    // The host bits of the base address are ignored: the block is the one the base falls in.
    ['10.1.2.150/26', '10.1.2.128', true],
    ['10.1.2.150/26', '10.1.2.192', false],
    // /32 is exactly one address, /0 every address; every octet counts.
    ['10.1.2.3/32', '10.1.2.3', true],
    ['10.1.2.3/32', '10.1.2.4', false],
    ['10.1.2.3/32', '11.1.2.3', false],
    ['10.1.2.3/0', '200.9.9.9', true],
    ['10.0.0.0/8', '10.255.255.255', true],
    ['10.0.0.0/8', '11.0.0.0', false],
    ['10.0.0.0/24', '10.0.0.255', true],
    // Surrounding blanks are trimmed, as the tag router's YAML may leave them.
    [' 10.0.0.0/24 ', '10.0.0.7', true],
  ] as const)('%s contains %s: %s', (pattern, host, expected) => {
    expect(matchIpExpression(pattern, host, 80)).toBe(expected);
  });

  it('matches no host name (zonesim has IPv4 literals only, no DNS)', () => {
    expect(matchIpExpression('10.0.0.0/8', 'provider-a', 80)).toBe(false);
  });

  it.each(['10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/8.5', '10.0.0.0/x', '10.0.0.0/', '10.0.0.0/0x8', '10.0.0.0/ 8', '10.0.0.0/1e1', '10.0.0/8', '10.0.0.256/8', 'a10.0.0.0/8', '10.0.0.0a/8'])(
    'throws on the malformed CIDR %s',
    (pattern) => {
      expect(() => matchIpExpression(pattern, '10.0.0.1', 80)).toThrow(/invalid CIDR/);
    },
  );
});

describe('matchIpExpression with range patterns', () => {
  it.each([
    // The bounds of a range are inclusive.
    ['10.0.0.5-9', '10.0.0.5', true],
    ['10.0.0.5-9', '10.0.0.9', true],
    ['10.0.0.5-9', '10.0.0.4', false],
    ['10.0.0.5-9', '10.0.0.10', false],
    // Java's Integer.parseInt takes a sign.
    ['10.0.0.+5-9', '10.0.0.6', true],
    // A pattern segment of zeros matches a 0 segment of the host, only in a pattern with '*' or '-'.
    ['10.*.0.00', '10.4.0.0', true],
    ['10.*.0.000', '10.4.0.0', true],
    ['10.*.0.0000', '10.4.0.0', true],
    ['10.*.0.00', '10.4.0.1', false],
    ['10.*.0.01', '10.4.0.1', false],
    // A 0 segment of the host is matched by zeros only, not by another number or an empty segment.
    ['10.*.0.5', '10.4.0.0', false],
    ['10.*..0', '10.4.0.0', false],
    // Every segment must match, the last one too.
    ['10.*.0.1', '10.4.0.2', false],
    ['10.0.*.*', '11.0.0.0', false],
    // 255 is a segment of an IPv4 host; 256 is not, so that host is a name matched by its text only.
    ['10.0.0.*', '10.0.0.255', true],
    ['10.0.0.*', '10.0.0.256', false],
    // Java's String.split drops trailing empty strings: "10.0.*.*.." has four segments.
    ['10.0.*.*..', '10.0.3.4', true],
    // Blanks around the pattern are trimmed.
    [' 10.0.*.* ', '10.0.3.4', true],
    [' * ', '10.0.3.4', true],
  ] as const)('%s against %s is %s', (pattern, host, expected) => {
    expect(matchIpExpression(pattern, host, 80)).toBe(expected);
  });

  it.each(['10.0.x1-5.*', '10.0.1-5x.*', '10.0.1-.*', '10.0.-5.*', '10.0.a-b.*'])('throws on the range segment of %s that is not two integers', (pattern) => {
    expect(() => matchIpExpression(pattern, '10.0.3.4', 80)).toThrow(/wrong format of ip Address/);
  });

  it('checks the port of a pattern with an empty host part before its host part (Dubbo getPatternHostAndPort)', () => {
    expect(matchIpExpression(':20881', '10.0.3.4', 20880)).toBe(false);
    expect(() => matchIpExpression(':20880', '10.0.3.4', 20880)).toThrow(/not ipv4 pattern/);
  });

  it.each(['10.0.0.', '10.0..', '...', '10.0.0.0.1', '*.*'])('throws on %s, which is not four segments', (pattern) => {
    expect(() => matchIpExpression(pattern, '10.0.3.4', 80)).toThrow(/not ipv4 pattern/);
  });
});

describe('matchIpExpression against a host that is not an IPv4 literal', () => {
  it.each([
    ['provider-a', 'provider-a', 20880, true],
    ['provider-a:20880', 'provider-a', 20880, true],
    ['provider-a:20881', 'provider-a', 20880, false],
    ['provider-b', 'provider-a', 20880, false],
    ['provider-b:20880', 'provider-a', 20880, false],
    ['*', 'provider-a', 20880, true],
    ['*.*.*.*', 'provider-a', 20880, true],
    ['10.0.0.*', 'x10.0.0.1', 20880, false],
    ['10.0.0.*', '10.0.0.1x', 20880, false],
  ] as const)('%s against %s:%d is %s (its exact text, no DNS)', (pattern, host, port, expected) => {
    expect(matchIpExpression(pattern, host, port)).toBe(expected);
  });
});
