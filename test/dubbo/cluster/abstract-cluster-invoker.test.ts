import { describe, expect, it } from 'vitest';
import { clusters } from '../../../src/dubbo/extensions.js';
import type { ConsumerFilter } from '../../../src/dubbo/runtime.js';
import { createRuntime } from '../../../src/dubbo/runtime.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { Simulation } from '../../../src/engine/simulation.js';
import {
  consumerUrl,
  invocation,
  ok,
  providerUrl,
  RecordingDirectory,
  registryUrl,
  runCall,
  ScriptedClusterInvoker,
  ScriptedInvoker,
  type AttemptRecord,
} from './fixtures.js';

describe('AbstractClusterInvoker.invokeWithContext', () => {
  it('runs the consumer filters around a provider attempt', () => {
    const sim = new Simulation();
    const seen: string[] = [];
    const filter: ConsumerFilter = {
      before: (_inv, _invocation, nowMs) => seen.push(`before@${nowMs}`),
      after: (_inv, _invocation, result, elapsedMs) => seen.push(`after ${result.kind} ${elapsedMs}ms`),
    };
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters: [filter] });
    const cUrl = consumerUrl();
    const log: AttemptRecord[] = [];
    const provider = new ScriptedInvoker({ name: 'p0', url: providerUrl(0, cUrl), sim, script: () => ok('x', 7), log });
    const cluster = clusters.failfast!(new RecordingDirectory(runtime, registryUrl(), cUrl, [provider]), runtime);
    runCall(sim, cluster.invoke(invocation()));
    expect(seen).toEqual(['before@0', 'after ok 7ms']);
  });

  it('does not run the filters around a nested cluster invoker, which runs them around its own attempts', () => {
    const sim = new Simulation();
    let calls = 0;
    const filter: ConsumerFilter = { before: () => calls++, after: () => calls++ };
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters: [filter] });
    const cUrl = consumerUrl();
    const group = new ScriptedClusterInvoker({ registryUrl: registryUrl(), consumerUrl: cUrl, sim, answer: ok('merged') });
    const cluster = clusters.mergeable!(new RecordingDirectory(runtime, registryUrl(), cUrl, [group]), runtime);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'merged' });
    expect(group.invocations).toBe(1);
    expect(calls).toBe(0);
  });
});
