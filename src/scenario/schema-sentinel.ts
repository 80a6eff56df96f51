/**
 * The `sentinel:` blocks of the scenario schema (SPEC 2.13): Sentinel rules in Sentinel's own JSON field
 * names, so that what a Nacos or file datasource holds can be pasted as is (YAML or JSON), and the
 * adapter's fallback. The fields Sentinel's dashboard adds (`id`, `app`, `ip`, `port`, `gmtCreate`,
 * `gmtModified`, `clusterConfig`) are accepted and ignored; cluster mode, the relate and chain
 * strategies and the parameter rules' thread grade and rate limiter are refused as not modelled. Each
 * rule is checked as Sentinel's rule managers check it (`sentinel/rules.ts`), which would drop an
 * invalid rule silently: here it is an error naming the field.
 */
import { z } from 'zod';
import { int, onType, str } from './schema-fields.js';
import { degradeRule, degradeRuleProblem, flowRule, flowRuleProblem } from '../sentinel/rules.js';

const num = (what = 'a number') => z.number({ error: `expected ${what}` });
const nonNegative = (what: string) => num(`${what} >= 0`).min(0, { error: `expected ${what} >= 0` });

/** Fields the dashboard writes into its rules; they change nothing here. */
const dashboardFields = {
  id: z.unknown().optional().describe("Sentinel dashboard's rule id (ignored)."),
  app: z.unknown().optional().describe("Sentinel dashboard's application (ignored)."),
  ip: z.unknown().optional().describe('Ignored.'),
  port: z.unknown().optional().describe('Ignored.'),
  gmtCreate: z.unknown().optional().describe('Ignored.'),
  gmtModified: z.unknown().optional().describe('Ignored.'),
};

const clusterMode = z
  .literal(false, { error: 'cluster flow control is not modelled: expected false (or leave clusterMode out)' })
  .optional()
  .describe('Must be false: cluster (token server) flow control is not modelled.');

const resource = str('a resource name such as com.example.UserService or com.example.UserService:getUser()')
  .min(1, { error: 'expected a resource name' })
  .describe('The resource: `<interface>` or `<interface>:<method>(<param types>)` (zonesim ignores the parameter types).');
const limitApp = str('default, other or an application name').optional().describe('Origin the rule limits: default (all), other, or a consumer application (provider side).');

/** Reports a rule's problem (as Sentinel's `isValidRule` sees it) on its field. */
function refineWith<T>(problem: (rule: T) => string | null, make: (v: never) => T) {
  return (v: unknown, ctx: z.RefinementCtx): void => {
    const p = problem(make(v as never));
    if (p !== null) ctx.addIssue({ code: 'custom', path: [p.split(/[ :]/)[0]!], message: p });
  };
}

/** `FlowRule`. */
export const flowRuleSchema = z
  .strictObject(
    {
      resource,
      limitApp,
      grade: z.literal([0, 1], { error: 'expected 0 (thread count) or 1 (QPS)' }).optional().describe('0 thread count, 1 QPS (default).'),
      count: nonNegative('a threshold').describe('The threshold: QPS or threads.'),
      strategy: z.literal(0, { error: 'expected 0 (direct): relate and chain are not modelled' }).optional().describe('0 direct (the only one modelled).'),
      refResource: z.unknown().optional().describe('Ignored (relate and chain strategies are not modelled).'),
      controlBehavior: z
        .union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)], { error: 'expected 0 (reject), 1 (warm up), 2 (rate limiter) or 3 (warm-up rate limiter)' })
        .optional()
        .describe('0 reject (default), 1 warm up, 2 rate limiter, 3 warm-up rate limiter.'),
      warmUpPeriodSec: int(1).optional().describe('Warm-up period in seconds (default 10).'),
      maxQueueingTimeMs: int(0).optional().describe('Longest a rate-limited call queues (default 500 ms).'),
      coldFactor: num('a cold factor > 1').optional().describe("Warm-up's cold factor: the JVM's csp.sentinel.flow.cold.factor (default 3)."),
      clusterMode,
      clusterConfig: z.unknown().optional().describe('Ignored.'),
      ...dashboardFields,
    },
    { error: onType('expected a flow rule { resource, count, grade?, controlBehavior?, ... }') },
  )
  .superRefine(refineWith(flowRuleProblem, flowRule))
  .meta({ id: 'SentinelFlowRule' });

/** `DegradeRule`. */
export const degradeRuleSchema = z
  .strictObject(
    {
      resource,
      limitApp,
      grade: z
        .union([z.literal(0), z.literal(1), z.literal(2)], { error: 'expected 0 (slow-request ratio), 1 (error ratio) or 2 (error count)' })
        .optional()
        .describe('0 slow-request ratio (default), 1 error ratio, 2 error count.'),
      count: nonNegative('a threshold').describe('Slow ratio: the max RT in ms; error ratio: the ratio (0..1); error count: the count.'),
      timeWindow: int(1, 'a recovery time in seconds').describe('Seconds the breaker stays open before a half-open probe.'),
      minRequestAmount: int(1).optional().describe('Completed calls in the window before the breaker may open (default 5).'),
      slowRatioThreshold: num('a ratio between 0 and 1').optional().describe('Slow-request ratio that opens the breaker (default 1.0).'),
      statIntervalMs: int(1).optional().describe('The statistics window (default 1000 ms, one bucket).'),
      ...dashboardFields,
    },
    { error: onType('expected a degrade rule { resource, grade, count, timeWindow, ... }') },
  )
  .superRefine(refineWith(degradeRuleProblem, degradeRule))
  .meta({ id: 'SentinelDegradeRule' });

/** `SystemRule`: -1 (or absent) leaves a threshold off. */
export const systemRuleSchema = z.strictObject(
  {
    highestSystemLoad: num().optional().describe('zonesim: the busy threads of the provider process (stands for the load average).'),
    highestCpuUsage: num().optional().describe('zonesim: busy threads / pool size of the provider process (stands for CPU usage, 0..1).'),
    qps: num().optional().describe('Inbound pass QPS of the process.'),
    avgRt: num().optional().describe('Average RT (ms) of inbound calls.'),
    maxThread: num().optional().describe('Inbound calls in progress.'),
    ...dashboardFields,
  },
  { error: onType('expected a system rule { qps?, maxThread?, avgRt?, highestCpuUsage?, highestSystemLoad? }') },
).meta({ id: 'SentinelSystemRule' });

/** `ParamFlowRule` (QPS grade, default behaviour). */
export const paramFlowRuleSchema = z.strictObject(
  {
    resource,
    limitApp,
    grade: z.literal(1, { error: 'expected 1 (QPS): the thread grade is not modelled' }).optional(),
    paramIdx: z.int({ error: 'expected an argument index' }).describe('Argument index: zonesim calls have one argument, the user id (0).'),
    count: nonNegative('a threshold').describe('Calls per durationInSec for each value.'),
    controlBehavior: z.literal(0, { error: 'expected 0: only the default behaviour is modelled' }).optional(),
    maxQueueingTimeMs: int(0).optional(),
    burstCount: int(0).optional().describe('Extra calls a value may burst.'),
    durationInSec: int(1).optional().describe('The window of each value (default 1 s).'),
    paramFlowItemList: z
      .array(
        z.strictObject({
          object: z.union([z.string(), z.number()], { error: 'expected the value' }),
          classType: str().optional(),
          count: nonNegative('a threshold'),
        }),
        { error: 'expected a list of { object, classType, count }' },
      )
      .optional()
      .describe('Per-value thresholds.'),
    clusterMode,
    clusterConfig: z.unknown().optional(),
    ...dashboardFields,
  },
  { error: onType('expected a hot-parameter rule { resource, paramIdx, count, ... }') },
).meta({ id: 'SentinelParamFlowRule' });

const FALLBACK = /^(default|throw|return\s+\S.*)$/;

/** A `sentinel:` block (top level, consumer group, provider group, or a `sentinel` fault's rules). */
export const sentinelSchema = z.strictObject(
  {
    flowRules: z.array(flowRuleSchema, { error: 'expected a list of flow rules' }).optional(),
    degradeRules: z.array(degradeRuleSchema, { error: 'expected a list of degrade rules' }).optional(),
    systemRules: z.array(systemRuleSchema, { error: 'expected a list of system rules' }).optional(),
    paramFlowRules: z.array(paramFlowRuleSchema, { error: 'expected a list of hot-parameter rules' }).optional(),
    fallback: str('default, throw, return null or return <value>')
      .regex(FALLBACK, { error: 'expected default, throw, return null or return <value>' })
      .optional()
      .describe('What the adapter does with a blocked call: default (a result carrying the block exception), throw, return null, return <value>.'),
  },
  { error: onType('expected a sentinel map { flowRules?, degradeRules?, systemRules?, paramFlowRules?, fallback? }') },
).meta({ id: 'Sentinel', description: 'Sentinel rules in its JSON field names, and the adapter fallback (SPEC 2.13).' });

/** The `sentinel` fault: a datasource update for one application's JVMs (all when absent). */
export const sentinelFaultSchema = sentinelSchema.extend({
  application: str('an application name').optional().describe("Only this application's JVMs (consumer or provider); default all."),
});
