/**
 * Java hash-table iteration order. The vectors were printed by `java/Vectors.java` (beside this
 * file) on OpenJDK 17.0.15 and Temurin 25, which agree: `java Vectors.java > java-hash-order.vectors.json`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  concurrentHashMapKeyOrder,
  hashMapKeyOrder,
  objectsHash,
  stringHashCode,
} from '../../../src/dubbo/directory/java-hash-order.js';

interface Vectors {
  stringHash: [string, number][];
  hashMap: { in: string[]; put: string[]; computeIfAbsent: string[] }[];
  hashMapInt: { in: number[]; put: number[]; computeIfAbsent: number[] }[];
  chmAddresses: { group: string | null; in: string[]; out: string[] }[];
  chmInt: { initialCapacity: number; in: number[]; out: number[] }[];
}
const vectors = JSON.parse(readFileSync(new URL('./java-hash-order.vectors.json', import.meta.url), 'utf8')) as Vectors;

// Dubbo ServiceDiscoveryRegistryDirectory.ProtocolServiceKeyWithAddress#hashCode over
// ServiceKey(interface, group, version) and ProtocolServiceKey(protocol), as Vectors.java spells it.
const keyHash = (group: string | null) => (address: string) =>
  objectsHash(objectsHash(objectsHash('com.example.PriceService', group, null), 'dubbo'), address);

describe('Java hash order', () => {
  it.each(vectors.stringHash)('String.hashCode(%j) is %i', (s, h) => {
    expect(stringHashCode(s)).toBe(h);
  });

  it('Objects.hash folds element hashes as Arrays.hashCode, null as 0', () => {
    expect(objectsHash()).toBe(1);
    expect(objectsHash(null)).toBe(31);
    expect(objectsHash('a', 'b')).toBe((31 * (31 + 97) + 98) | 0);
  });

  it.each(vectors.hashMap)('new HashMap<String,?>() filled in order %j iterates as Java does', (v) => {
    expect(hashMapKeyOrder(v.in, stringHashCode)).toEqual(v.put);
    // computeIfAbsent puts a new key first in its bin (RegistryDirectory.toMergeInvokerList uses it).
    expect(hashMapKeyOrder(v.in, stringHashCode, { insertion: 'computeIfAbsent' })).toEqual(v.computeIfAbsent);
  });

  it.each(vectors.hashMapInt)('HashMap grows, and resizes instead of treeifying a long bin below 64 bins (%j)', (v) => {
    expect(hashMapKeyOrder(v.in, (k) => k)).toEqual(v.put);
    expect(hashMapKeyOrder(v.in, (k) => k, { insertion: 'computeIfAbsent' })).toEqual(v.computeIfAbsent);
  });

  it.each(vectors.chmAddresses.map((v) => [v.in.length, v.group, v] as const))(
    'ConcurrentHashMap((int)(%i / 0.75f + 1)) over provider keys of group %s iterates as Java does',
    (_n, group, v) => {
      expect(concurrentHashMapKeyOrder(v.in, keyHash(group), Math.trunc(Math.fround(v.in.length / Math.fround(0.75)) + 1))).toEqual(v.out);
    },
  );

  it.each(vectors.chmInt)('ConcurrentHashMap grows (count, presize) and splits bins as transfer() does: %j', (v) => {
    expect(concurrentHashMapKeyOrder(v.in, (k) => k, v.initialCapacity)).toEqual(v.out);
  });
});
