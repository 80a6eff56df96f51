// The estate is running when the run starts: every provider is registered before any reference subscribes, so the
// references a provider makes for its downstream calls (call graphs) read whole lists at the start, whatever the
// order the provider groups are written in. Before, a caller listed before its downstream providers subscribed as
// it started, and each later registration was pushed to it at t = 0 (two tiers of 50,000 providers each: 2,000,000
// pushes that saturated the registry's cards for the whole run, with no fault at all).
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const CALLERS = `
  - { name: gw, service: com.example.Api, zone: zoneA, count: 6 }`;
const CALLEES = `
  - { name: data, service: com.example.Data, zone: zoneA, count: 8 }`;

function pushes(callersFirst: boolean) {
  const text = `
name: order
duration: 5s
warmup: 0s
dubbo: '2.7'
zones: { zoneA: { cidr: 10.0.0.0/16 } }
registry: { type: nacos }
services:
  com.example.Api:
    methods:
      handle: { serviceTime: 1ms, calls: [{ service: com.example.Data, method: read }] }
  com.example.Data: { methods: { read: { serviceTime: 1ms } } }
providers:${callersFirst ? CALLERS + CALLEES : CALLEES + CALLERS}
consumers:
  - { application: web, zone: zoneA, instances: 3, rate: 100/s, calls: { com.example.Api.handle: 1 } }
`;
  return runScenario(parseScenario(text, 'order.yaml'), { version: 'test' }).summary.registry.pushes;
}

describe('building the world', () => {
  it("gives a provider's references the whole lists at the start, whatever the order the groups are written in", () => {
    // The first reads only: 3 consumer instances of Api, 6 callers of Data; nothing changes in 5 s.
    expect(pushes(false)).toBe(3 + 6);
    expect(pushes(true)).toBe(3 + 6);
  });
});
