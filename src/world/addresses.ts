/**
 * IP addresses for simulated instances, handed out in order from each zone's CIDR (skipping the
 * network address and any .0/.255 last octet so addresses look like real hosts).
 */

/** Parses `a.b.c.d/n` into a base number and size; throws on malformed input. */
export function parseCidr(cidr: string): { base: number; size: number } {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr.trim());
  if (!m) throw new Error(`malformed CIDR "${cidr}"`);
  const octets = m.slice(1, 5).map(Number);
  const bits = Number(m[5]);
  if (octets.some((o) => o > 255) || bits > 32) throw new Error(`malformed CIDR "${cidr}"`);
  const ip = ((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!;
  const size = 2 ** (32 - bits);
  const base = ip - (ip % size);
  return { base, size };
}

/** Dotted text of a 32-bit address. */
export function ipToString(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** Sequential allocator over one CIDR. */
export class AddressPool {
  readonly #base: number;
  readonly #size: number;
  #next = 1;

  constructor(cidr: string) {
    const { base, size } = parseCidr(cidr);
    this.#base = base;
    this.#size = size;
  }

  /** The next free address. */
  allocate(): string {
    for (;;) {
      if (this.#next >= this.#size - 1 && this.#size > 2) throw new Error('CIDR exhausted');
      const n = this.#base + this.#next++;
      const last = n & 255;
      if (this.#size > 256 && (last === 0 || last === 255)) continue;
      return ipToString(n);
    }
  }
}
