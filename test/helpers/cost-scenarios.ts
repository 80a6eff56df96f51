/**
 * The cost-estimate inputs of the third hostile-input audit (defect 3), generated here rather than
 * kept as files (a 1,000-tier chain is 300 KB of YAML): the minimal scenario and its variants
 * (`retry_never`, `queue`, `tiny`), fan-outs over D tiers and chains of N tiers.
 */

/**
 * The audit's `min.yaml`: two zones, `com.example.S.m` lognormal p50 5 ms / p99 50 ms, providers
 * `pa` and `pb` (2 each, 200 threads), one consumer group (2 instances, 200/s, timeout 1000 ms,
 * retries 2), 10 s with 1 s of warmup. `o` changes what the variants change.
 */
export function minYaml(o: { name?: string; serviceTime?: string; timeout?: string; retries?: number; rate?: string; duration?: string } = {}): string {
  return `name: ${o.name ?? 'min'}
duration: ${o.duration ?? '10s'}
warmup: 1s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
services:
  com.example.S:
    methods:
      m: { serviceTime: ${o.serviceTime ?? '{ dist: lognormal, p50: 5ms, p99: 50ms }'} }
providers:
  - { name: pa, service: com.example.S, zone: zoneA, count: 2, threads: 200 }
  - { name: pb, service: com.example.S, zone: zoneB, count: 2, threads: 200 }
consumers:
  - application: c
    zone: zoneA
    instances: 2
    rate: ${o.rate ?? '200/s'}
    calls: { com.example.S.m: 1 }
    reference: { com.example.S: { timeout: ${o.timeout ?? '1000ms'}, retries: ${o.retries ?? 2} } }
`;
}

/** The audit's `retry_never.yaml`: every attempt times out (10 ms against 1 ms), with 10,000,000 retries. */
export const RETRY_NEVER = minYaml({ name: 'retry_never', serviceTime: '10ms', timeout: '1ms', retries: 10_000_000 });

/** The audit's `tiny.yaml`: the minimal scenario at 20/s for 2 s. */
export const TINY = minYaml({ name: 'tiny', rate: '20/s', duration: '2s' });

/**
 * The audit's `queue.yaml`: one provider with one thread and an unbounded queue (`queues: -1`),
 * 10 ms of service, offered `rate` (20,000/s: 200 times what it can serve) for `duration`.
 */
export function queueYaml(rate = '20000/s', duration = '60s'): string {
  return `name: queue
duration: ${duration}
warmup: 1s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
services:
  com.example.S:
    methods:
      m: { serviceTime: 10ms }
providers:
  - { name: pa, service: com.example.S, zone: zoneA, count: 1, threads: 1, queues: -1 }
consumers:
  - application: c
    zone: zoneA
    instances: 2
    rate: ${rate}
    calls: { com.example.S.m: 1 }
    reference: { com.example.S: { timeout: 1000ms, retries: 2 } }
`;
}

/**
 * `gen_e.py fan(D, par='true')`: tiers `com.example.T0..TD`, each with methods `a` and `b` whose
 * calls are `[T(i+1).a, T(i+1).b]` in parallel (timeout 100000 ms, retries 0), one provider per
 * tier; the edge calls `T0.a` at 1/s for 10 s. Requests: 10 × (2^(D+1) - 1).
 */
export function fanYaml(depth: number): string {
  const ref = '{ timeout: 100000ms, retries: 0 }';
  const lines = [`name: fan${depth}p`, 'duration: 10s', 'warmup: 1s', 'zones:', '  zoneA: { cidr: 10.10.0.0/16 }', 'services:'];
  for (let i = 0; i <= depth; i++) {
    lines.push(`  com.example.T${i}:`, '    methods:');
    for (const m of ['a', 'b']) {
      const calls = i < depth ? `, parallel: true, calls: [{ service: com.example.T${i + 1}, method: a, reference: ${ref} }, { service: com.example.T${i + 1}, method: b, reference: ${ref} }]` : '';
      lines.push(`      ${m}: { serviceTime: 1ms${calls} }`);
    }
  }
  lines.push('providers:');
  for (let i = 0; i <= depth; i++) lines.push(`  - { name: p${i}, service: com.example.T${i}, zone: zoneA, count: 1 }`);
  lines.push('consumers:', `  - { application: c, zone: zoneA, instances: 1, rate: 1/s, calls: { com.example.T0.a: 1 }, reference: { com.example.T0: ${ref} } }`);
  return `${lines.join('\n')}\n`;
}

/**
 * A chain of `tiers` services `T0 -> T1 -> ... -> T(tiers-1)`, one call each (1 ms, timeout
 * 100000 ms, retries 0), one provider per tier; the edge calls `T0.m` at `rate`. `extra` is
 * appended at the top level (faults, arrival changes).
 */
export function chainYaml(tiers: number, o: { rate?: string; arrival?: string; warmup?: string; extra?: string } = {}): string {
  const ref = '{ timeout: 100000ms, retries: 0 }';
  const lines = [`name: chain${tiers}`, 'duration: 10s', `warmup: ${o.warmup ?? '1s'}`, 'zones:', '  zoneA: { cidr: 10.10.0.0/16 }', 'services:'];
  for (let i = 0; i < tiers; i++) {
    const calls = i + 1 < tiers ? `, calls: [{ service: com.example.T${i + 1}, method: m, reference: ${ref} }]` : '';
    lines.push(`  com.example.T${i}: { methods: { m: { serviceTime: 1ms${calls} } } }`);
  }
  lines.push('providers:');
  for (let i = 0; i < tiers; i++) lines.push(`  - { name: p${i}, service: com.example.T${i}, zone: zoneA, count: 1 }`);
  lines.push(
    'consumers:',
    `  - { application: c, zone: zoneA, instances: 1, rate: ${o.rate ?? '10/s'}, arrival: ${o.arrival ?? 'poisson'}, calls: { com.example.T0.m: 1 }, reference: { com.example.T0: ${ref} } }`,
  );
  return `${lines.join('\n')}\n${o.extra ?? ''}`;
}
