/**
 * IP addresses for simulated instances, handed out in order from each zone's CIDR (skipping the
 * network and broadcast addresses, and in CIDRs larger than a /24 any .0/.255 last octet, so
 * addresses look like real hosts). An address is never handed out twice: an instance that
 * replaces another gets a new one. `addressCapacity` says how many there are, so that scenario
 * validation can refuse a timeline that would run out.
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

/**
 * How many addresses an `AddressPool` over a CIDR of `size` addresses hands out: all of a /31 or
 * /32, else all but the network and broadcast addresses, and above a /24 also no .0 or .255.
 */
export function capacityOfSize(size: number): number {
  if (size <= 2) return size;
  if (size <= 256) return size - 2;
  return (size / 256) * 254;
}

/** How many addresses an `AddressPool` over `cidr` hands out (see `capacityOfSize`). */
export function addressCapacity(cidr: string): number {
  return capacityOfSize(parseCidr(cidr).size);
}

/** Sequential allocator over one CIDR. */
export class AddressPool {
  readonly #base: number;
  readonly #size: number;
  #next: number;

  constructor(cidr: string) {
    const { base, size } = parseCidr(cidr);
    this.#base = base;
    this.#size = size;
    // A /31 or /32 has no network or broadcast address (RFC 3021): every address is a host.
    this.#next = size <= 2 ? 0 : 1;
  }

  /** The next free address; throws when the CIDR has none left (scenario validation prevents it). */
  allocate(): string {
    for (;;) {
      if (this.#next >= (this.#size <= 2 ? this.#size : this.#size - 1)) throw new Error('CIDR exhausted');
      const n = this.#base + this.#next++;
      const last = n & 255;
      if (this.#size > 256 && (last === 0 || last === 255)) continue;
      return ipToString(n);
    }
  }
}
