import { describe, expect, it } from 'vitest';
import { AddressPool, addressCapacity } from '../../src/world/addresses.js';

/** Every address a pool hands out before it says it is exhausted. */
function drain(cidr: string): string[] {
  const pool = new AddressPool(cidr);
  const out: string[] = [];
  for (;;) {
    try {
      out.push(pool.allocate());
    } catch (e) {
      expect((e as Error).message).toBe('CIDR exhausted');
      return out;
    }
  }
}

describe('AddressPool', () => {
  it('hands out exactly addressCapacity addresses, each once', () => {
    for (const cidr of ['10.0.0.0/32', '10.0.0.0/31', '10.0.0.0/30', '10.0.0.0/28', '10.0.0.0/24', '10.0.0.0/23', '10.0.0.0/16']) {
      const all = drain(cidr);
      expect(all.length, cidr).toBe(addressCapacity(cidr));
      expect(new Set(all).size, cidr).toBe(all.length);
    }
  });

  it('a /31 or /32 holds every one of its addresses and nothing outside (a /31 used to give 10.0.0.2)', () => {
    expect(drain('10.0.0.0/31')).toEqual(['10.0.0.0', '10.0.0.1']);
    expect(drain('10.0.0.7/32')).toEqual(['10.0.0.7']);
  });

  it('skips network and broadcast, and .0/.255 in CIDRs above a /24', () => {
    expect(drain('10.0.0.0/30')).toEqual(['10.0.0.1', '10.0.0.2']);
    const wide = drain('10.0.0.0/23');
    expect(wide).not.toContain('10.0.0.255');
    expect(wide).not.toContain('10.0.1.0');
    expect(addressCapacity('10.10.0.0/16')).toBe(65_024);
  });
});
