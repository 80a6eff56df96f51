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
