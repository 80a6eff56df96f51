/** ZoneAwareLoadBalance (`zoneAware`): same-zone weight ×100, cross-zone ×1, configurable. */
import { describe, expect, it } from 'vitest';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';
import { invocation, makeRuntime, pickCounts, pickIndexes, TestInvoker } from './fixtures.js';

const RUNS = 20_000;

function zoned(zones: string[], extra = ''): TestInvoker[] {
  return zones.map((z, i) => new TestInvoker(`dubbo://10.0.0.${i + 1}:20880/DemoService?zone=${z}${extra}`));
}

function expectShare(count: number, p: number): void {
  expect(Math.abs(count - RUNS * p)).toBeLessThanOrEqual(4.5 * Math.sqrt(RUNS * p * (1 - p)));
}

describe('ZoneAwareLoadBalance', () => {
  it('sends 100 of every 101 calls to the same zone by default', () => {
    const invokers = zoned(['zoneA', 'zoneB']);
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA');
    const lb = makeRuntime({ seed: 21 }).getLoadBalance('zoneAware');
    const counts = pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
    expectShare(counts[1]!, 1 / 101);
  });

  it('reads both multipliers from the consumer URL', () => {
    const invokers = zoned(['zoneA', 'zoneB', 'zoneB']);
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA&zone.same.weight=2&zone.cross.weight=1');
    const lb = makeRuntime({ seed: 22 }).getLoadBalance('zoneAware');
    const counts = pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
    expectShare(counts[0]!, 2 / 4);
  });

  it('keeps provider weights inside each zone', () => {
    const invokers = [
      new TestInvoker('dubbo://10.0.0.1:20880/DemoService?zone=zoneA&weight=100'),
      new TestInvoker('dubbo://10.0.0.2:20880/DemoService?zone=zoneA&weight=300'),
      new TestInvoker('dubbo://10.0.0.3:20880/DemoService?zone=zoneB&weight=100'),
    ];
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA&zone.cross.weight=0');
    const lb = makeRuntime({ seed: 23 }).getLoadBalance('zoneAware');
    const counts = pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
    expect(counts[2]).toBe(0);
    expectShare(counts[0]!, 1 / 4);
  });

  it('is plain weighted random when every provider is in another zone', () => {
    const invokers = zoned(['zoneB', 'zoneC', 'zoneB'], '&weight=7').map((inv, i) =>
      i === 2 ? new TestInvoker('dubbo://10.0.0.3:20880/DemoService?zone=zoneB&weight=30') : inv,
    );
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA');
    const zoneAware = makeRuntime({ seed: 24 }).getLoadBalance('zoneAware');
    const random = makeRuntime({ seed: 24 }).getLoadBalance('random');
    const a = pickIndexes(() => zoneAware.select(invokers, consumer, invocation()), invokers, 500);
    const b = pickIndexes(() => random.select(invokers, consumer, invocation()), invokers, 500);
    expect(a).toEqual(b);
  });

  it("uses the provider's own zone, not the consumer's value of a merged URL", () => {
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA');
    const invokers = ['zoneA', 'zoneB'].map(
      (z, i) => new TestInvoker(new ServiceAddressURL(URL.valueOf(`dubbo://10.0.0.${i + 1}:20880/DemoService?zone=${z}`), consumer)),
    );
    const lb = makeRuntime({ seed: 25 }).getLoadBalance('zoneAware');
    const counts = pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
    expectShare(counts[1]!, 1 / 101);
  });
});
