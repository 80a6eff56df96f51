/**
 * The order of a directory's invoker list (issue 9, item 5).
 * - Application level: ServiceDiscoveryRegistryDirectory.toInvokers (lines 407-410, 473-475) fills a
 *   `new ConcurrentHashMap<>((int) (urls.size() / 0.75f + 1))` keyed by ProtocolServiceKeyWithAddress
 *   (hashCode, line 753: Objects.hash(ProtocolServiceKey.hashCode, address)) and refreshInvoker
 *   (line 371) takes `new ArrayList<>(newUrlInvokerMap.values())`. The key is made of strings, so
 *   the order is Java's hash order, reproduced here; the expected orders were printed by a JDK
 *   (../directory/java/Vectors.java).
 * - Interface level: RegistryDirectory keys the same kind of map by the provider URL, whose hash
 *   depends on per-process state (see the DIVERGENCE in ReferenceInvokers): push order is kept.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ReferenceInvokers } from '../../src/stack/consumer-stack.js';
import type { ProtocolContext } from '../../src/stack/dubbo-invoker.js';
import { URL } from '../../src/dubbo/url.js';
import type { ProviderExport } from '../../src/world/provider.js';

const vectorsFile = new globalThis.URL('../dubbo/directory/java-hash-order.vectors.json', import.meta.url);
const vectors = JSON.parse(readFileSync(vectorsFile, 'utf8')) as {
  chmAddresses: { group: string | null; in: string[]; out: string[] }[];
};

const SERVICE = 'com.example.PriceService';
const consumer = (group?: string) =>
  new URL({ protocol: 'consumer', host: '10.9.0.1', path: SERVICE, params: { interface: SERVICE, side: 'consumer', ...(group ? { group } : {}) } });
const providers = (addresses: readonly string[], group: string | null): ProviderExport[] =>
  addresses.map(
    (a) => ({ service: SERVICE, url: `dubbo://${a}/${SERVICE}?interface=${SERVICE}&side=provider${group ? `&group=${group}` : ''}` }) as ProviderExport,
  );
const protocol = {} as ProtocolContext;
const hostsOf = (refs: ReferenceInvokers, pushed: readonly ProviderExport[]) =>
  refs.invokersFor(pushed).map((i) => i.getUrl().getAddress());

describe('directory order', () => {
  it.each(vectors.chmAddresses.map((v) => [v.in.length, v.group, v] as const))(
    'application level: %i providers (group %s) come in ConcurrentHashMap order, as a JDK iterates them',
    (_n, group, v) => {
      const refs = new ReferenceInvokers(consumer(group ?? undefined), protocol, 'application');
      expect(hostsOf(refs, providers(v.in, group))).toEqual(v.out);
    },
  );

  it('application level: the same providers pushed in another order come out the same, but for keys sharing a bin', () => {
    const v = vectors.chmAddresses.find((x) => x.in.length === 10 && x.group === null)!;
    const reversed = vectors.chmAddresses.find((x) => x.in.length === 10 && x.in[0] === v.in.at(-1))!;
    const refs = new ReferenceInvokers(consumer(), protocol, 'application');
    expect(hostsOf(refs, providers([...v.in].reverse(), null))).toEqual(reversed.out);
  });

  it('interface level keeps the push order (Dubbo\'s URL-keyed order cannot be computed: DIVERGENCE)', () => {
    const addresses = ['10.0.0.3:20880', '10.0.0.1:20880', '10.0.0.2:20880'];
    const refs = new ReferenceInvokers(consumer(), protocol, 'interface');
    expect(hostsOf(refs, providers(addresses, null))).toEqual(addresses);
  });

  it('the list of one pushed list is built once and shared', () => {
    const refs = new ReferenceInvokers(consumer(), protocol, 'application');
    const pushed = providers(['10.0.0.1:20880', '10.0.0.2:20880', '10.0.0.3:20880'], null);
    expect(refs.invokersFor(pushed)).toBe(refs.invokersFor(pushed));
    expect(refs.groupsFor(pushed)).toBe(refs.groupsFor(pushed));
  });
});
