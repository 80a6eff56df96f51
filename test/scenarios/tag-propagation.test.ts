/**
 * `dubbo.tag` across tiers (SPEC 2.7, issue 9 item 3). Dubbo 3.3's provider ContextFilter
 * (dubbo-rpc-api `filter/ContextFilter.java`, UNLOADING_KEYS lines 75-135, invoke lines 138-149)
 * drops `dubbo.tag` from what the provider keeps while executing, and ConsumerContextFilter
 * (dubbo-cluster `filter/support/ConsumerContextFilter.java` lines 82-83) sends the rest on: a tag
 * set at the edge routes the first hop only. `propagation: { tag: true | <key> }` models the
 * tag-carrying filter that full-link gray and lane set-ups install.
 *
 * The runs are call-graph-amplification (web -> OrderService.place -> InventoryService.reserve)
 * with one canary inventory provider (dubbo.tag=canary) and a fast reserve, so every call succeeds.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario, type Plugins } from '../../src/scenario/run.js';
import { observedFailover } from '../helpers/observed-failover.js';

const file = fileURLToPath(new URL('../../scenarios/call-graph-amplification.yaml', import.meta.url));
const INVENTORY = 'com.example.InventoryService';
const CANARY_TIER2 = [
  'providers[2]={name: inventory-canary, service: com.example.InventoryService, zone: dc, count: 1, params: {dubbo.tag: canary}}',
  'services["com.example.InventoryService"].methods.reserve.serviceTime=5ms',
  'duration=6s',
  'warmup=1s',
];

/** Attachments of every call as its cluster invoker saw them, by service (a cluster plugin over failover). */
const recording = (seen: Map<string, Array<Map<string, string>>>): Plugins =>
  observedFailover({
    before: (invocation) => {
      const list = seen.get(invocation.serviceName) ?? [];
      seen.set(invocation.serviceName, list);
      list.push(new Map(invocation.attachments));
    },
  });

function run(sets: string[], seen?: Map<string, Array<Map<string, string>>>): Summary {
  const { scenario } = loadScenarioWithRaw(file, [...CANARY_TIER2, ...sets]);
  return runScenario(scenario, { version: 'test', plugins: seen === undefined ? undefined : recording(seen) }).summary;
}

const canary = (s: Summary) => s.byProviderGroup['inventory-canary']!.executions;
const stable = (s: Summary) => s.byProviderGroup['inventory']!.executions;

describe('dubbo.tag across tiers (ContextFilter / ConsumerContextFilter)', () => {
  it('unloads the tag at the second tier by default: its tag router sees no tag and keeps off the canary', () => {
    const seen = new Map<string, Array<Map<string, string>>>();
    const s = run(['consumers[0].attachments={"dubbo.tag": canary}'], seen);
    expect(s.ok).toBe(s.requests);
    expect(canary(s)).toBe(0);
    expect(stable(s)).toBeGreaterThan(200);
    // The first hop carried it; the second never does.
    expect(seen.get('com.example.OrderService')!.every((a) => a.get('dubbo.tag') === 'canary')).toBe(true);
    expect(seen.get(INVENTORY)!.some((a) => a.has('dubbo.tag'))).toBe(false);
  });

  it('propagation.tag: true carries the incoming dubbo.tag on: every reserve goes to the canary', () => {
    const s = run(['consumers[0].attachments={"dubbo.tag": canary}', 'propagation={tag: true}']);
    expect(s.ok).toBe(s.requests);
    expect(stable(s)).toBe(0);
    expect(canary(s)).toBeGreaterThan(200);
  });

  it('propagation.tag: lane copies the incoming lane attachment into dubbo.tag (the first hop carries no tag)', () => {
    const seen = new Map<string, Array<Map<string, string>>>();
    const s = run(['consumers[0].attachments={lane: canary}', 'propagation={tag: lane}'], seen);
    expect(s.ok).toBe(s.requests);
    expect(stable(s)).toBe(0);
    expect(canary(s)).toBeGreaterThan(200);
    expect(seen.get('com.example.OrderService')!.some((a) => a.has('dubbo.tag'))).toBe(false);
    expect(seen.get(INVENTORY)!.every((a) => a.get('dubbo.tag') === 'canary' && a.get('lane') === 'canary')).toBe(true);
  });

  it('lets a provider group\'s propagation override the top-level one', () => {
    const tagged = 'consumers[0].attachments={"dubbo.tag": canary}';
    const offInGroup = run([tagged, 'propagation={tag: true}', 'providers[0].propagation={tag: false}']);
    expect(canary(offInGroup)).toBe(0);
    const onInGroup = run([tagged, 'propagation={tag: false}', 'providers[0].propagation={tag: true}']);
    expect(stable(onInGroup)).toBe(0);
    const otherKeyInGroup = run(['consumers[0].attachments={lane: canary, "dubbo.tag": stable}', 'propagation={tag: true}', 'providers[0].propagation={tag: lane}']);
    expect(stable(otherKeyInGroup)).toBe(0);
  });

  it('passes every other attachment through, and unloads timeout, group, version and path with the tag', () => {
    const seen = new Map<string, Array<Map<string, string>>>();
    run(['consumers[0].attachments={traceId: t-1, lane: gray, "dubbo.force.tag": "true", timeout: "3000", group: g, version: "1.0", path: p}'], seen);
    const downstream = seen.get(INVENTORY)!;
    expect(downstream.length).toBeGreaterThan(200);
    for (const a of downstream) expect(Object.fromEntries(a)).toEqual({ traceId: 't-1', lane: 'gray' });
  });
});
