import { describe, expect, it } from 'vitest';
import { runScenario } from '../../src/scenario/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import type { FaultSpec, RegistrySpec } from '../../src/model/types.js';
import { NACOS_BEAT_BYTES, REQUEST_OVERHEAD_BYTES } from '../../src/world/registry-servers.js';
import { NO_NOTIFICATION_DELAY, scenario } from './registry-fixtures.js';

// Two providers, four consumer instances that send nothing; one provider stops gracefully at 12.5 s.
const stop: FaultSpec = { atMs: 12_500, action: { kind: 'restart', count: 1 }, label: 'faults[0]' };

// 59 s: the last beats (55 s, 57.5 s) are answered before the end.
function run(registry: Partial<RegistrySpec>, faults: FaultSpec[] = [stop], durationMs = 59_000, seed = 1) {
  const s = scenario({ registry, consumers: [{ instances: 4, dubbo: NO_NOTIFICATION_DELAY }] });
  return runScenario({ ...s, durationMs, warmupMs: 0, faults }, { version: 'test', seed }).summary;
}

describe('registry servers in the summary', () => {
  it('are left out, with their timeline columns, when the registry is not a server', () => {
    const summary = run({});
    expect(summary.registry.servers).toBeUndefined();
    expect(summary.registry.pushLagMs).toBeUndefined();
    expect(Object.keys(summary.timeline[0]!)).not.toContain('registryBytes');
  });

  it('load no node with the running estate at time 0: its registrations and subscribe reads were made before the run', () => {
    // 1 s: past Nacos's 500 ms push delay, before the first beat (5 s).
    const summary = run({ capacity: { bandwidthBytesPerSec: 10_000 } }, [], 1_000);
    const node = summary.registry.servers!['registry-1']!;
    // The four consumer instances read the list once each (pushes, with their bytes), but not through the node;
    // the registrations are the lists they read, not a change pushed to them after the push delay.
    expect(summary.registry.pushes).toBe(4);
    expect(summary.registry.pushBytes).toBeGreaterThan(0);
    expect(node.requestsServed).toBe(0);
    expect(node.bytesOut).toBe(0);
    expect(node.bytesIn).toBe(0);
  });

  it('load their node with what a fault does at time 0: only what the build made is the running estate', () => {
    // A restart at 0 ms runs from the agenda: its deregistration and its new process's registration are requests.
    const restartAtZero: FaultSpec = { ...stop, atMs: 0 };
    const node = run({ capacity: { bandwidthBytesPerSec: 10_000 } }, [restartAtZero], 1_000).registry.servers!['registry-1']!;
    expect(node.requestsServed).toBe(2);
    expect(node.bytesIn).toBeGreaterThan(0);
  });

  it('account every byte a node sent: the pushes, and the answers to beats, registrations and deregistrations', () => {
    const summary = run({ capacity: { bandwidthBytesPerSec: 10_000 } });
    const node = summary.registry.servers!['registry-1']!;
    expect(Object.keys(summary.registry.servers!)).toEqual(['registry-1']);
    // Requests: 1 deregistration and 1 registration of the restarted process, the rest Nacos 1.x beats (one per
    // instance every 5 s); the 2 registrations and 4 subscribe reads at time 0 load no node.
    const registrations = 1;
    const deregistrations = 1;
    const beats = node.requestsServed - registrations - deregistrations;
    expect(beats).toBeGreaterThanOrEqual(2 * 11);
    // Pushes after time 0 go through the node with their bytes; the reads at time 0 are counted, not sent.
    const startReadBytes = run({ capacity: { bandwidthBytesPerSec: 10_000 } }, [], 1).registry.pushBytes;
    const expected = summary.registry.pushBytes - startReadBytes + beats * NACOS_BEAT_BYTES.reply + (registrations + deregistrations) * REQUEST_OVERHEAD_BYTES;
    expect(node.bytesOut).toBe(expected);
    expect(summary.timeline.reduce((s, r) => s + r.registryBytes!, 0)).toBe(node.bytesOut);
    // The busiest bucket's utilization is at least its bytes over what the NIC sends in a bucket.
    const busiest = summary.timeline.reduce((m, r) => Math.max(m, r.registryBytes!), 0);
    expect(node.nicOut.peakUtilization).toBeGreaterThanOrEqual(busiest / 10_000 - 1e-6);
    expect(node.nicOut.peakUtilization).toBeLessThanOrEqual(1);
    expect(node.nicOut.meanUtilization).toBeCloseTo(node.bytesOut / 10_000 / 59, 5);
    // Every push waited for the NIC and then for the 20..300 ms network lag.
    expect(summary.registry.pushLagMs!.p50).toBeGreaterThan(20);
    expect(summary.registry.pushLagMs!.max).toBeLessThan(300 + (8 * 1000) / 10);
  });

  it('send a Nacos beat once the last one came back: an overloaded node is sent what it serves and one beat per record more', () => {
    // Two providers of one export beat every 5 s (22 beats in 59 s); a node that serves 0.15 requests/s processes
    // at most 8 of them in 59 s. A record whose beat has not come back (within the 50 s read timeout) sends none.
    const requests = (requestsPerSec: number, connectionBound: boolean) =>
      run({ capacity: { requestsPerSec }, connectionBound }, [], 59_000).registry.servers!['registry-1']!.requestsServed;
    expect(requests(1000, false)).toBe(22);
    const served = Math.floor(0.15 * 59);
    const overloaded = requests(0.15, false);
    expect(overloaded).toBeLessThanOrEqual(served + 2);
    expect(overloaded).toBeGreaterThanOrEqual(served);
    // A 2.x health check gives up after 3 s, before the next keepalive: each one is sent, however slow the node.
    expect(requests(1000, true)).toBe(22);
    expect(requests(0.15, true)).toBe(22);
  });

  it('count an expired ZooKeeper session on its node and in the bucket where it expired', () => {
    // A crash at 20 000.5 ms: last ping at 20 s, a 40 s session, expiry in the 2 s bucket after 60 s.
    const crash: FaultSpec = { atMs: 20_000.5, action: { kind: 'crash', count: 1 }, label: 'faults[0]' };
    const summary = run({ type: 'zookeeper', servers: { zoneA: 1, zoneB: 1 } }, [crash], 70_000);
    const servers = summary.registry.servers!;
    expect(Object.keys(servers)).toEqual(['zoneA-1', 'zoneB-1']);
    expect(servers['zoneA-1']!.sessionsExpired + servers['zoneB-1']!.sessionsExpired).toBe(1);
    expect(summary.timeline.filter((r) => r.sessionsExpired! > 0).map((r) => [r.tMs, r.sessionsExpired])).toEqual([[62_000, 1]]);
    // Without capacity the nodes queue nothing.
    expect(servers['zoneA-1']!.nicOut.peakUtilization).toBe(0);
  });

  it('are deterministic: the same seed gives the same summary bytes, another seed other push lags', () => {
    const registry: Partial<RegistrySpec> = { servers: { zoneA: 1, zoneB: 2 }, capacity: { bandwidthBytesPerSec: 5000, requestsPerSec: 50 } };
    const a = JSON.stringify(run(registry));
    expect(JSON.stringify(run(registry))).toBe(a);
    const other = run(registry, [stop], 59_000, 2);
    expect(JSON.stringify(other.registry.pushLagMs)).not.toBe(JSON.stringify(JSON.parse(a).registry.pushLagMs));
  });

  it('run a shipped ZooKeeper scenario on a three-node 10 Mbps ensemble to its end, each node serving its share', () => {
    const scenario = loadScenarioFile('scenarios/zk-session-expiry.yaml', ['registry.servers={ zoneA: 2, zoneB: 1 }', 'registry.capacity.bandwidth=10Mbps']);
    // Seed 2 once hung: a read-timeout check fell a rounding error short of its deadline and was set again at once.
    const plain = runScenario(loadScenarioFile('scenarios/zk-session-expiry.yaml'), { version: 'test', seed: 2 }).summary;
    const summary = runScenario(scenario, { version: 'test', seed: 2 }).summary;
    const nodes = Object.values(summary.registry.servers!);
    expect(nodes).toHaveLength(3);
    for (const n of nodes) expect(n.requestsServed).toBeGreaterThan(0);
    // zoneB's hosts go dark at 35 s: their 12 sessions (6 processes, two levels each) expire on the
    // ensemble as on the single server, counted once each on the node their client was on.
    expect(summary.events['registry.sessionExpired']).toBe(plain.events['registry.sessionExpired']);
    expect(nodes.reduce((s, n) => s + n.sessionsExpired, 0)).toBe(12);
    expect(summary.timeline.reduce((s, r) => s + r.sessionsExpired!, 0)).toBe(12);
  });
});
