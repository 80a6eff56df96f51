/**
 * `registry.simplified` (Dubbo's `dubbo.registry.simplified`): what the consumer sees is the simplified
 * provider URL, so routing that reads a dropped key loses it; `check` names the key and who needs it.
 */
import { describe, expect, it } from 'vitest';
import { checkScenario } from '../../src/analysis/check.js';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

/** users in zoneA and zoneB (4 each), web in zoneA behind a zone router that falls back to all. */
function estate(opts: { registry: string; routers?: string; providerExtra?: string; dubbo?: string }): string {
  return `
name: simplified
duration: 20s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
network:
  rtt:
    zoneA<->zoneB: 3ms
registry: ${opts.registry}
${opts.dubbo ?? ''}
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 5ms }
providers:
  - { name: users-a, service: com.example.UserService, zone: zoneA, count: 4${opts.providerExtra ?? ''} }
  - { name: users-b, service: com.example.UserService, zone: zoneB, count: 4${opts.providerExtra ?? ''} }
consumers:
  - { application: web, zone: zoneA, rate: 200/s, calls: { com.example.UserService.getUserById: 1 } }
routers: ${opts.routers ?? '[{ type: zone, fallback: true }]'}
`;
}

const simplifiedWarnings = (text: string) => checkScenario(parseScenario(text, 'simplified.yaml')).warnings.filter((w) => w.kind === 'registry-simplified-drops');

describe('simplified URLs and zone-aware routing', () => {
  it('the zone router loses the provider zone: calls spread over both zones, as without a zone', () => {
    const run = (registry: string) => runScenario(parseScenario(estate({ registry }), 'simplified.yaml'), { version: 'test' }).summary;
    const full = run('{ type: nacos, registration: interface }');
    const simplified = run('{ type: nacos, registration: interface, simplified: true }');
    const kept = run('{ type: nacos, registration: interface, simplified: true, extraKeys: [zone] }');
    // Application level is not simplified: 3.3's APPLICATION_FIRST calls through it, and keeps the zone.
    expect(run('{ type: nacos, simplified: true }').crossZoneRatio).toBe(0);
    expect(full.crossZoneRatio).toBe(0);
    expect(kept.crossZoneRatio).toBe(0);
    // No provider has a zone: the router falls back to all 8, half of them in zoneB (random load balance).
    // Over ~4000 attempts the binomial standard error of the share is under 0.008; 0.05 is over six of them.
    expect(simplified.attempts).toBeGreaterThan(3000);
    expect(Math.abs(simplified.crossZoneRatio - 0.5)).toBeLessThan(0.05);
    // And every push is smaller.
    expect(simplified.registry.pushes).toBe(full.registry.pushes);
    expect(simplified.registry.pushBytes).toBeLessThan(full.registry.pushBytes);
  });

  it('check warns that the registry drops zone, which the zone router needs, and is quiet once extraKeys keeps it', () => {
    const warnings = simplifiedWarnings(estate({ registry: '{ type: nacos, registration: interface, simplified: true }', providerExtra: ', warmup: 0s' }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ registry: 'registry', consumer: 'web', zone: 'zoneA', service: 'com.example.UserService' });
    expect(warnings[0]!.message).toContain("drops 'zone' from the provider URLs of com.example.UserService, but web (zoneA) relies on it for the zone router");
    expect(simplifiedWarnings(estate({ registry: '{ type: nacos, registration: interface, simplified: true, extraKeys: [zone] }', providerExtra: ', warmup: 0s' }))).toEqual([]);
    expect(simplifiedWarnings(estate({ registry: '{ type: nacos, registration: interface }' }))).toEqual([]);
    // Application level is not simplified: registration application, or 3.3's APPLICATION_FIRST with 3.3 providers there.
    expect(simplifiedWarnings(estate({ registry: '{ type: nacos, simplified: true, registration: application }' }))).toEqual([]);
    expect(simplifiedWarnings(estate({ registry: '{ type: nacos, simplified: true }' }))).toEqual([]);
  });

  it('warns that 3.3 drops timestamp (warmup) but 2.7 keeps it', () => {
    const warm = { routers: '[]', providerExtra: ', warmup: 60s' };
    const v33 = simplifiedWarnings(estate({ registry: '{ type: nacos, registration: interface, simplified: true }', ...warm }));
    expect(v33.map((w) => w.message)).toEqual([expect.stringContaining("drops 'timestamp' from the provider URLs of com.example.UserService, but web (zoneA) relies on it for warmup")]);
    expect(simplifiedWarnings(estate({ registry: '{ type: nacos, simplified: true }', ...warm, dubbo: "dubbo: '2.7'" }))).toEqual([]);
  });
});
