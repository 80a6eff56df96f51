import { describe, expect, it } from 'vitest';
import { ZONE_KEY } from '../../src/dubbo/constants.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import {
  REGISTER_PROVIDER_KEYS_27,
  REGISTER_PROVIDER_KEYS_33,
  simplifiedUrl,
} from '../../src/world/registry-simplified-url.js';
import type { DubboConsumerStack } from '../../src/stack/consumer-stack.js';
import { makeWorld, NO_NOTIFICATION_DELAY, providers, scenario, SERVICE } from './registry-fixtures.js';

const URL_TEXT =
  'dubbo://10.0.0.1:20880/com.example.UserService?anyhost=true&application=users&dubbo=2.0.2&interface=com.example.UserService' +
  '&methods=getUser,listUsers&release=3.3.2&side=provider&zone=zoneA&timestamp=1767225600000&weight=100&warmup=600000' +
  '&dubbo.tag=gray&retries=0&getUser.timeout=300&group=a&version=1.0&threads=200';

/** The parameter names of a URL text, in order. */
const keysOf = (url: string) => url.slice(url.indexOf('?') + 1).split('&').map((kv) => kv.split('=')[0]!);

describe('dubbo.registry.simplified URLs', () => {
  it('3.3 keeps DEFAULT_REGISTER_PROVIDER_KEYS and the per-method keys, dropping zone, timestamp and dubbo.tag', () => {
    const kept = keysOf(simplifiedUrl(URL_TEXT, '3.3'));
    const expected = keysOf(URL_TEXT).filter((k) => REGISTER_PROVIDER_KEYS_33.includes(k) || k.startsWith('getUser') || k.startsWith('listUsers'));
    expect(kept).toEqual(expected);
    for (const gone of ['zone', 'timestamp', 'dubbo.tag', 'interface', 'methods', 'anyhost', 'retries', 'threads']) expect(kept).not.toContain(gone);
  });

  it('2.7 keeps timestamp and dubbo.tag but not side', () => {
    const kept = keysOf(simplifiedUrl(URL_TEXT, '2.7'));
    expect(kept).toEqual(keysOf(URL_TEXT).filter((k) => REGISTER_PROVIDER_KEYS_27.includes(k) || k.startsWith('getUser')));
    expect(kept).toContain('timestamp');
    expect(kept).toContain('dubbo.tag');
    expect(kept).not.toContain('side');
  });

  it('keeps extraKeys, and interface when the path differs from it', () => {
    expect(keysOf(simplifiedUrl(URL_TEXT, '3.3', ['zone']))).toContain('zone');
    const other = URL_TEXT.replace('20880/com.example.UserService?', '20880/users-path?');
    expect(keysOf(simplifiedUrl(other, '3.3'))).toContain('interface');
  });

  it.each(['nacos', 'zookeeper'] as const)('%s: every interface-level push is smaller by what the simplification drops from each URL it carries', (type) => {
    const run = (simplified: boolean) => {
      const { world, observer } = makeWorld(scenario({ registry: { type, simplified }, consumers: [{ instances: 2, dubbo: NO_NOTIFICATION_DELAY }] }));
      world.sim.run({ until: 1000 });
      const registry = world.registry as DiscoveryRegistry;
      return { pushes: observer.pushes.map((p) => p.bytes), urls: providers(world).map((p) => ({ full: p.url, reg: registry.registeredUrl(p.exports[0]!) })) };
    };
    const full = run(false);
    const simple = run(true);
    expect(simple.pushes).toHaveLength(full.pushes.length);
    // ZooKeeper holds the URL-encoded text, Nacos the text.
    const size = type === 'zookeeper' ? (s: string) => encodeURIComponent(s).length : (s: string) => Buffer.byteLength(s);
    const saved = simple.urls.map((u) => size(u.full) - size(u.reg));
    // Both providers drop the same parameters (same group, same start time): one saving per URL carried.
    expect(new Set(saved).size).toBe(1);
    const perUrl = saved[0]!;
    expect(perUrl).toBeGreaterThan(0);
    const diffs = full.pushes.map((b, i) => b - simple.pushes[i]!);
    for (const d of diffs) expect(d % perUrl).toBe(0);
    // A push carrying both providers saves twice the per-URL figure.
    expect(Math.max(...diffs)).toBe(perUrl * simple.urls.length);
  });

  it('application level is unaffected', () => {
    const run = (simplified: boolean) => {
      const { world, observer } = makeWorld(scenario({ registry: { type: 'nacos', registration: 'application', simplified }, consumers: [{ instances: 2 }] }));
      world.sim.run({ until: 1000 });
      return observer.pushBytes;
    };
    expect(run(true)).toBe(run(false));
  });

  it('consumers see the simplified URL: without zone in extraKeys, no provider has a zone', () => {
    const zonesSeen = (extraKeys?: string[]) => {
      const s = scenario({
        registry: { type: 'nacos', simplified: true, extraKeys },
        consumers: [{ instances: 1, dubbo: NO_NOTIFICATION_DELAY }],
      });
      const { world } = makeWorld(s, { stack: 'dubbo' });
      world.sim.run({ until: 1000 });
      const stack = world.consumerGroups[0]!.instances[0]!.stack as DubboConsumerStack;
      return stack.references.get(SERVICE)!.directory.getAllInvokers().map((inv) => inv.getUrl().getOriginalParameter(ZONE_KEY));
    };
    const without = zonesSeen();
    expect(without.length).toBeGreaterThan(0);
    expect(without.every((z) => z === undefined)).toBe(true);
    expect(zonesSeen(['zone']).every((z) => z === 'zoneA')).toBe(true);
  });
});
