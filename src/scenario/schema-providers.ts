/**
 * The provider groups of the scenario schema (SPEC 2.3): zone, count, thread pool, registered URL,
 * per-service export settings (Dubbo 3.2+ executor isolation, ExecuteLimitFilter, TpsLimitFilter) and
 * dynamic isolation of slow methods. Strategies override the export and isolation parts by group
 * (schema-strategies.ts); default group names are normalize.ts's.
 */
import { z } from 'zod';
import { int, onType, repeatSchema, str, urlParams } from './schema-fields.js';
import { propagationSchema } from './schema-services.js';
import { durationSchema } from './units.js';
import { dubboSchema } from './dubbo-schema.js';
import { sentinelSchema } from './schema-sentinel.js';

const executorSchema = z.strictObject(
  {
    threads: int(1).describe("The service's own pool size."),
    queues: z.int({ error: 'expected an integer' }).default(0).describe('0 = no queue; < 0 unbounded; > 0 bounded.'),
  },
  { error: onType('expected an executor map { threads, queues? }') },
);

/** Per-service settings of a provider group (`exports.<service>`): executor, filters, URL parameters. */
export const exportSchema = z.strictObject(
  {
    executor: executorSchema
      .optional()
      .describe("Dubbo 3.2+ thread-pool isolation (executor-management-mode: isolation): the service's own pool."),
    executes: int(0).optional().describe('ExecuteLimitFilter: concurrent executions per method (0 = no limit).'),
    tps: int(0).optional().describe('TpsLimitFilter: calls per tps.interval (0 = no limit).'),
    'tps.interval': durationSchema.optional().describe('TpsLimitFilter interval (default 60s).'),
    params: urlParams().default({}).describe("Extra parameters on this service's registered URL."),
    methods: z
      .record(
        z.string(),
        z.strictObject({ executes: int(0).optional().describe('ExecuteLimitFilter limit of this method.') }, {
          error: onType('expected a method map { executes }'),
        }),
        { error: 'expected a map of method name to { executes }' },
      )
      .default({}),
  },
  { error: onType('expected an export map { executor?, executes?, tps?, params?, methods? }') },
);

/** Dynamic isolation: a slow method moves to its own pool while it stays slow. */
export const dynamicIsolationSchema = z.strictObject(
  {
    concurrency: int(1).describe('A method with more concurrent executions than this ...'),
    rt: durationSchema.describe('... while its mean RT over window exceeds this moves to its own pool.'),
    threads: int(1).describe('Threads of the pool a slow method moves to.'),
    window: durationSchema.prefault('10s').describe('Window of the mean RT.'),
    restoreAfter: durationSchema.prefault('30s').describe('Moves back after this long of normal mean RT.'),
  },
  { error: onType('expected { concurrency, rt, threads, window?, restoreAfter? }') },
);

/** A provider group: one service (or several on one port) in one zone, `count` instances alike. */
/** Dubbo's `threadpool` values zonesim models (ThreadPool SPI names). */
export const THREAD_POOLS = ['fixed', 'eager'] as const;

export const providerSchema = z.strictObject(
  {
    name: str().optional().describe('Group name; default <service>@<zone>#<index> (index among groups of that service and zone).'),
    repeat: repeatSchema,
    service: str('a service name').optional().describe('The one service the group exports (or use services).'),
    services: z
      .array(str('a service name'), { error: 'expected a list of service names' })
      .min(1, { error: 'expected at least one service' })
      .optional()
      .describe("Services every process exports on one port, sharing the process's thread pool."),
    exports: z
      .record(z.string(), exportSchema, { error: 'expected a map of service name to export settings' })
      .default({})
      .describe('Per-service settings: executor, executes, tps, tps.interval, params, methods.'),
    isolation: z
      .strictObject({ dynamic: dynamicIsolationSchema.optional() }, { error: onType('expected { dynamic: {...} }') })
      .optional()
      .describe('Dynamic isolation of slow methods (the practice of the "Dubbo practice" article, not a Dubbo built-in).'),
    zone: str('a zone name'),
    count: int(0).default(1).describe('Instances in the group.'),
    threadpool: z
      .enum(THREAD_POOLS, { error: 'expected fixed or eager' })
      .optional()
      .describe(
        "Dubbo `threadpool` of the group's shared pool: fixed (default) or eager (EagerThreadPool: threads grow to `threads` before the queue fills; `queues` <= 0 is a queue of 1).",
      ),
    threads: int(1)
      .optional()
      .describe('Dubbo `threads`: the pool size (fixed) or its maximum (eager). Default 200 for fixed, 2147483647 (Integer.MAX_VALUE) for eager.'),
    queues: z
      .int({ error: 'expected an integer' })
      .default(0)
      .describe('fixed: 0 = no queue, < 0 unbounded, > 0 bounded; eager: > 0 bounded, otherwise a queue of 1.'),
    weight: int(0).default(100).describe('Dubbo `weight` on the registered URL.'),
    warmup: durationSchema.prefault('10m').describe('Dubbo `warmup` on the registered URL.'),
    application: str().optional().describe('Application on the registered URL; default <service simple name>-provider.'),
    registries: z.array(str('a registry name')).optional().describe('Registries to register with (default: all).'),
    params: urlParams().default({}).describe('Extra URL parameters on the registered URL (zone overrides the zone).'),
    propagation: propagationSchema.optional().describe("This group's tag propagation (SPEC 2.7); wins over the top-level one."),
    dubbo: dubboSchema.optional().describe("This group's Dubbo release and switches (SPEC 2.11); wins over the top-level one."),
    sentinel: sentinelSchema.optional().describe("Sentinel rules this group's JVMs load (SPEC 2.13), kind by kind over the top-level ones."),
  },
  { error: onType('expected a provider group map { service, zone, count, ... }') },
).superRefine((v, ctx) => {
  if ((v.service === undefined) === (v.services === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: v.service === undefined ? [] : ['services'],
      message: v.service === undefined ? 'give service: NAME or services: [NAME, ...]' : 'give either service or services, not both',
    });
  }
});
