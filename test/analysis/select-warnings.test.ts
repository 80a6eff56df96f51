/**
 * `zonesim select` warnings and inputs (issue 9 item 12). leastactive / shortestresponse read
 * RpcStatus, which in Dubbo 3.3 only ActiveLimitFilter counts, and that filter is built into the
 * chain only for URLs whose `actives` passes ConfigUtils.isNotEmpty (ActiveLimitFilter.java
 * `@Activate(group = CONSUMER, value = ACTIVES_KEY)`; ExtensionLoader.isActive): without it every
 * pick is weighted random (LeastActiveLoadBalance / ShortestResponseLoadBalance with all counts 0).
 * The zone balancers read the consumer's `zone`. `--args-file` gives one invocation per line, for
 * several consistent-hash keys (ConsistentHashLoadBalance hashes the configured arguments).
 */
import { describe, expect, it } from 'vitest';
import type { Io } from '../../src/scenario/io.js';
import { UsageError } from '../../src/scenario/io.js';
import { parseArgsFile, runSelect, type SelectOptions } from '../../src/analysis/select.js';

function run(opts: Partial<SelectOptions>) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { cwd: process.cwd(), stdout: (t) => out.push(t), stderr: (t) => err.push(t) };
  const code = runSelect({ loadbalance: 'random', providers: [], args: [], seed: 1, nowMs: 1_700_000_000_000, json: true, ...opts }, io);
  return { code, out: out.join(''), err: err.join(''), json: () => JSON.parse(out.join('')) as { picks: string[]; arguments?: string[][]; warnings?: string[] } };
}

const PLAIN = [1, 2, 3].map((i) => `dubbo://10.0.0.${i}:20880/com.example.DemoService?application=demo`);
const HASHED = [1, 2, 3, 4, 5].map((p) => `test://127.0.0.1:${p}/DemoService`);

describe('select warnings', () => {
  it.each(['leastactive', 'shortestresponse'])('warns that %s without actives is weighted random, on stderr and in the JSON', (lb) => {
    const r = run({ loadbalance: lb, providers: PLAIN, count: 3 });
    expect(r.err).toMatch(new RegExp(`^warning: ${lb} without active counting: no provider URL \\(nor --consumer\\) has an actives parameter`));
    expect(r.json().warnings).toHaveLength(1);
    expect(r.json().warnings![0]).toContain('every pick is weighted random, as in Dubbo 3.3');
  });

  it('does not warn when the URLs activate ActiveLimitFilter, and counts actives=0 as not activating', () => {
    expect(run({ loadbalance: 'leastactive', providers: PLAIN.map((u) => `${u}&actives=100`), count: 3 }).json().warnings).toBeUndefined();
    expect(run({ loadbalance: 'leastactive', providers: PLAIN.map((u) => `${u}&actives=0`), count: 3 }).err).toContain('without active counting');
    expect(run({ loadbalance: 'leastactive', providers: PLAIN, consumer: 'consumer://10.1.1.1/com.example.DemoService?actives=50', count: 3 }).err).toBe('');
  });

  it('names a partial activation', () => {
    const providers = [`${PLAIN[0]}&actives=10`, PLAIN[1]!, PLAIN[2]!];
    expect(run({ loadbalance: 'leastactive', providers, count: 3 }).json().warnings).toEqual([
      'leastactive: only 1 of 3 providers activate ActiveLimitFilter (an actives parameter); the others\' active counts stay 0, so they always look idle',
    ]);
  });

  it('warns when a zone balancer has no consumer zone, or no provider in it', () => {
    const zoned = PLAIN.map((u, i) => `${u}&zone=${i === 0 ? 'zoneA' : 'zoneB'}`);
    expect(run({ loadbalance: 'zoneAware', providers: zoned }).err).toContain("zoneAware has no consumer zone: give --consumer 'consumer://HOST/SERVICE?zone=ZONE'");
    expect(run({ loadbalance: 'zoneAware', providers: zoned, consumer: 'consumer://10.1.1.1/S?zone=zoneC' }).json().warnings).toEqual([
      'zoneAware: no provider URL has zone=zoneC, the consumer\'s zone, so nothing is preferred',
    ]);
    expect(run({ loadbalance: 'zoneAware', providers: zoned, consumer: 'consumer://10.1.1.1/S?zone=zoneA' }).err).toBe('');
  });

  it('keeps the JSON to {"picks"} when there is nothing to warn about', () => {
    expect(Object.keys(run({ loadbalance: 'roundrobin', providers: PLAIN, count: 2 }).json())).toEqual(['picks']);
  });
});

describe('select --args-file', () => {
  it('parses one invocation per line: whitespace-separated, or a JSON array; comments and blank lines skipped', () => {
    expect(parseArgsFile('# user ids\narg1\n\n["Alice Smith", 42, null]\na b\n[]\n')).toEqual([['arg1'], ['Alice Smith', '42', 'null'], ['a', 'b'], []]);
    expect(() => parseArgsFile('# nothing\n')).toThrow(UsageError);
    expect(() => parseArgsFile('[1, 2')).toThrow(/line 1: expected a JSON array/);
  });

  it('picks once per line for consistenthash, each key hashed on its own', () => {
    const text = 'arg1\narg1\nuser-17\nuser-18\n';
    const r = run({ loadbalance: 'consistenthash', providers: HASHED, method: 'method1', argsFile: text });
    const doc = r.json();
    expect(doc.picks).toHaveLength(4);
    expect(doc.arguments).toEqual([['arg1'], ['arg1'], ['user-17'], ['user-18']]);
    // Dubbo's ConsistentHashLoadBalanceTest: arg1 always maps to 127.0.0.1:2.
    expect(doc.picks.slice(0, 2)).toEqual(['127.0.0.1:2', '127.0.0.1:2']);
    for (let i = 2; i < 4; i++) {
      expect(run({ loadbalance: 'consistenthash', providers: HASHED, method: 'method1', args: doc.arguments![i]!, count: 1 }).json().picks).toEqual([doc.picks[i]]);
    }
  });

  it('cycles through the lines with --count', () => {
    const doc = run({ loadbalance: 'consistenthash', providers: HASHED, method: 'method1', argsFile: 'arg1\nx\n', count: 5 }).json();
    expect(doc.arguments).toEqual([['arg1'], ['x'], ['arg1'], ['x'], ['arg1']]);
  });

  it('lists arguments and picks as text', () => {
    const r = run({ loadbalance: 'consistenthash', providers: HASHED, method: 'method1', argsFile: 'arg1\n', json: false });
    expect(r.out).toContain('picks by arguments:\n  ["arg1"] -> 127.0.0.1:2\n');
  });

  it('refuses --arg together with --args-file', () => {
    expect(() => run({ loadbalance: 'consistenthash', providers: HASHED, args: ['a'], argsFile: 'b\n' })).toThrow(/not both/);
  });

  it('accepts pasted ZooKeeper lists as providers', () => {
    const encoded = PLAIN.map((u) => encodeURIComponent(u));
    const doc = run({ loadbalance: 'roundrobin', providers: [`[${encoded.join(', ')}]`], count: 3 }).json();
    expect([...doc.picks].sort()).toEqual(['10.0.0.1:20880', '10.0.0.2:20880', '10.0.0.3:20880']);
  });
});
