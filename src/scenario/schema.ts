/**
 * The RAW scenario file format (SPEC 2) as a zod 4 schema: every section, every default, strict
 * objects everywhere (an unknown key is an error). Parsing with it yields the file's values with
 * defaults applied and units converted (ms, per second, `DistSpec`) but still under the file's
 * key names; `normalize.ts` maps that onto `Scenario`, and `cross-check.ts` checks the names that
 * refer to each other (zones, services, methods, groups). Also the source of `zonesim schema`.
 *
 * Top-level defaults that SPEC leaves open: seed 1, duration 60s, warmup 5s, bucket 1s.
 * Defaults that depend on context (provider group names, registry pushLag by type, zone CIDRs,
 * consumer application names) are applied by `normalize.ts` and documented in the descriptions.
 */
import { z } from 'zod';
import { clusters, loadBalances } from '../dubbo/extensions.js';
import { suggestionOfKind } from './did-you-mean.js';
import { dubboSchema } from './dubbo-schema.js';
import { bucketSchema, distSchema, durationSchema, rateSchema, simulatedTimeSchema } from './units.js';

/** A schema-level error that words only type mismatches, leaving other issues (unknown keys) to the parse-level map. */
const onType = (message: string) => (iss: { code: string }) => (iss.code === 'invalid_type' ? message : undefined);

/** An integer >= min, with an expected-phrase message. */
const int = (min: number, what = 'an integer') =>
  z.int({ error: `expected ${what} >= ${min}` }).min(min, { error: `expected ${what} >= ${min}` });
const bool = () => z.boolean({ error: 'expected true or false' });
const str = (what = 'a string') => z.string({ error: `expected ${what}` });
const fraction = (what = 'a fraction') =>
  z
    .number({ error: `expected ${what} between 0 and 1` })
    .min(0, { error: `expected ${what} between 0 and 1` })
    .max(1, { error: `expected ${what} between 0 and 1` });
/** A map whose values are strings on the registered or consumer URL (numbers and booleans are written as text). */
const urlParams = () =>
  z.record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean()], { error: 'expected a string, number or boolean' }),
    { error: 'expected a map of URL parameters' },
  );

/** True for a plugin module path (`./x.js`, `../x.js`, `/abs/x.js`) in place of an extension name. */
export function isModulePath(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../') || name.startsWith('/');
}

/** The extension tables whose names a reference attribute takes, by attribute. */
const EXTENSIONS = { loadbalance: () => loadBalances, cluster: () => clusters } as const;

/** The extension names of every kind (for suggestions that rank the attribute's own kind first). */
export function extensionNames(): Record<keyof typeof EXTENSIONS, string[]> {
  return { loadbalance: Object.keys(EXTENSIONS.loadbalance()), cluster: Object.keys(EXTENSIONS.cluster()) };
}

/** An extension name checked against its table at validation time (helpers fill the tables as they land). */
function extensionName(kind: keyof typeof EXTENSIONS) {
  return str(`a ${kind} name`).superRefine((name, ctx) => {
    if (isModulePath(name)) return;
    const kinds = extensionNames();
    const names = kinds[kind];
    if (names.includes(name)) return;
    ctx.addIssue({
      code: 'custom',
      message: `expected a ${kind} name (${names.join(', ')}) or a plugin module path such as ./my-${kind}.js, found "${name}"${suggestionOfKind(name, kind, kinds)}`,
    });
  });
}

const ATTRS_DESCRIPTION = {
  timeout: 'Dubbo `timeout` (per attempt).',
  retries: 'Dubbo `retries`: extra attempts after the first (failover, failback).',
  loadbalance: 'Load balancer SPI name (random, roundrobin, leastactive, ...) or a plugin module path.',
  cluster: 'Cluster SPI name (failover, failfast, forking, ...) or a plugin module path.',
  forks: 'Dubbo `forks` (forking cluster).',
  sticky: 'Dubbo `sticky`.',
  actives: 'Dubbo `actives` (ActiveLimitFilter).',
  tag: 'Dubbo `tag` (dubbo.tag for tag routing).',
  mock:
    'Dubbo `mock` (MockClusterInvoker): `force:return <value>`, `force:throw [<class>]` (no provider is called), `fail:return ...` / `return ...` / `throw ...` (after the cluster fails with a non-business RpcException), `true` / `default` / a class name (a mock implementation); `false` or absent: no mock.',
  parameters: 'Any other consumer URL parameters.',
} as const;

/** `<dubbo:reference>` attributes (SPEC 2.4) without `methods`. */
function referenceAttrs(partial: boolean) {
  return {
    timeout: durationSchema.optional().describe(ATTRS_DESCRIPTION.timeout),
    retries: int(0).optional().describe(ATTRS_DESCRIPTION.retries),
    loadbalance: extensionName('loadbalance').optional().describe(ATTRS_DESCRIPTION.loadbalance),
    cluster: extensionName('cluster').optional().describe(ATTRS_DESCRIPTION.cluster),
    forks: z.int({ error: 'expected an integer' }).optional().describe(ATTRS_DESCRIPTION.forks),
    sticky: bool().optional().describe(ATTRS_DESCRIPTION.sticky),
    actives: int(0).optional().describe(ATTRS_DESCRIPTION.actives),
    tag: str().optional().describe(ATTRS_DESCRIPTION.tag),
    mock: z
      .union([z.string(), z.boolean(), z.number()], { error: 'expected a mock such as "force:return null", "fail:throw" or true' })
      .transform(String)
      .optional()
      .describe(ATTRS_DESCRIPTION.mock),
    parameters: partial ? urlParams().optional() : urlParams().default({}),
  };
}

/** Reference attributes usable as `consumerDefaults` and per method. */
const methodReferenceSchema = z.strictObject(referenceAttrs(false), {
  error: onType('expected a map of reference attributes (timeout, retries, loadbalance, ...)'),
});
const partialMethodReferenceSchema = z.strictObject(referenceAttrs(true), {
  error: onType('expected a map of reference attributes (timeout, retries, loadbalance, ...)'),
});

/** A `<dubbo:reference>` (interface level, with `methods.<m>.*`). */
export const referenceSchema = z
  .strictObject(
    {
      ...referenceAttrs(false),
      methods: z
        .record(z.string(), methodReferenceSchema, { error: 'expected a map of method name to reference attributes' })
        .default({})
        .describe('Method-level overrides: `methods: { updateUser: { retries: 0 } }`.'),
    },
    { error: onType('expected a map of reference attributes (timeout, retries, loadbalance, ...)') },
  )
  .meta({ id: 'Reference', description: '<dubbo:reference> attributes with Dubbo names; absent fields take Dubbo defaults.' });

/** A reference override without defaults (strategies). */
const partialReferenceSchema = z.strictObject(
  {
    ...referenceAttrs(true),
    methods: z.record(z.string(), partialMethodReferenceSchema).optional(),
  },
  { error: onType('expected a map of reference attributes (timeout, retries, loadbalance, ...)') },
);

const REGISTRY_TYPES = ['nacos', 'zookeeper', 'static'] as const;

/** Registry fields; `defaults` false for `registries:` entries and strategy overrides. */
function registryShape(defaults: boolean) {
  const d = <T extends z.ZodType>(schema: T, value: unknown, description: string) =>
    (defaults ? (schema as z.ZodType).prefault(value) : (schema as z.ZodType).optional()).describe(description) as
      z.ZodOptional<T>;
  return {
    type: d(z.enum(REGISTRY_TYPES, { error: 'expected nacos, zookeeper or static' }), 'static', 'nacos | zookeeper | static.'),
    zone: str('a zone name').optional().describe('Where the registry lives (matters for partitions); multi-registry zone.'),
    pushLag: distSchema
      .optional()
      .describe('Registry -> each consumer instance. Default 0 for static, uniform 20ms..300ms for nacos/zookeeper.'),
    heartbeat: d(durationSchema, '5s', 'nacos: provider heartbeat interval.'),
    unhealthyAfter: d(durationSchema, '15s', 'nacos: no heartbeat for this long -> unhealthy, pushed out.'),
    removeAfter: d(durationSchema, '30s', 'nacos: no heartbeat for this long -> deleted.'),
    sessionTimeout: d(durationSchema, '40s', 'zookeeper: ephemeral node removed after this long silent.'),
    emptyProtection: d(bool(), false, 'Dubbo default false; true keeps the old list on an empty push.'),
    registration: z
      .enum(['interface', 'application'], { error: 'expected interface or application' })
      .optional()
      .describe(
        "interface | application for every group, over the Dubbo profiles' register-mode and migration step (SPEC 2.11); unset: each group's profile decides.",
      ),
    registerDelay: d(durationSchema, 0, 'Providers register this long after start.'),
    connectionBound: bool()
      .optional()
      .describe(
        "Nacos 2.x: ephemeral instances follow the gRPC connection instead of heartbeats; for every provider, over the Dubbo profiles' nacosClient (SPEC 2.11).",
      ),
    preferred: d(bool(), false, 'Multi-registry: `preferred=true` on the registry URL.'),
    weight: d(int(0), 100, 'Multi-registry: registry URL `weight`.'),
  };
}

/** The default registry (`registry:`). */
export const registrySchema = z
  .strictObject(registryShape(true), { error: onType('expected a registry map (type, zone, pushLag, ...)') })
  .describe('The registry (SPEC 2.5).');

/** A registry without defaults: `registries:` entries (which inherit from `registry:`) and strategy overrides. */
const partialRegistrySchema = z.strictObject(registryShape(false), {
  error: 'expected a registry map (type, zone, pushLag, ...)',
});

/** SPEC 2.7 `propagation`: the tag-carrying filter of full-link gray / lane set-ups (top level or per provider group). */
const propagationSchema = z
  .strictObject(
    {
      tag: z
        .union([bool(), z.string().min(1)], { error: 'expected true, false or an attachment key such as lane' })
        .optional()
        .describe('true: the incoming dubbo.tag goes on every downstream call; a key: that incoming attachment becomes dubbo.tag; false: off.'),
    },
    { error: onType('expected { tag: true | <attachment key> }') },
  )
  .describe(
    "Without it, Dubbo's ContextFilter drops dubbo.tag (and timeout, path, group, version, ...) from what a provider passes to its downstream calls, so a tag routes the first hop only.",
  );

const downstreamCallSchema = z.strictObject(
  {
    service: str('a service name'),
    method: str('a method name'),
    reference: referenceSchema.prefault({}),
  },
  { error: onType('expected a downstream call { service, method, reference? }') },
);

const methodSchema = z
  .strictObject(
    {
      serviceTime: distSchema.describe('Time on a provider thread per execution.'),
      idempotent: bool().default(true).describe('false marks writes (counted in duplicateWrites).'),
      bizErrorRate: fraction('a business error rate').default(0).describe('Share of executions ending in a business exception.'),
      calls: z
        .array(downstreamCallSchema, { error: 'expected a list of downstream calls' })
        .default([])
        .describe('Call graph (SPEC 2.10): downstream calls made while executing, in order.'),
      parallel: bool().default(false).describe('Fan the downstream calls out in parallel.'),
    },
    { error: onType('expected a method map { serviceTime, idempotent?, ... }') },
  )
  .describe('A method of the service.');

const serviceSchema = z.strictObject(
  {
    methods: z.record(z.string(), methodSchema, { error: 'expected a map of method name to method' }),
  },
  { error: onType('expected a service map { methods: {...} }') },
);

const executorSchema = z.strictObject(
  {
    threads: int(1).describe("The service's own pool size."),
    queues: z.int({ error: 'expected an integer' }).default(0).describe('0 = no queue; < 0 unbounded; > 0 bounded.'),
  },
  { error: onType('expected an executor map { threads, queues? }') },
);

const exportSchema = z.strictObject(
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

const dynamicIsolationSchema = z.strictObject(
  {
    concurrency: int(1).describe('A method with more concurrent executions than this ...'),
    rt: durationSchema.describe('... while its mean RT over window exceeds this moves to its own pool.'),
    threads: int(1).describe('Threads of the pool a slow method moves to.'),
    window: durationSchema.prefault('10s').describe('Window of the mean RT.'),
    restoreAfter: durationSchema.prefault('30s').describe('Moves back after this long of normal mean RT.'),
  },
  { error: onType('expected { concurrency, rt, threads, window?, restoreAfter? }') },
);

/** Dubbo's `threadpool` values zonesim models (ThreadPool SPI names). */
export const THREAD_POOLS = ['fixed', 'eager'] as const;

const providerSchema = z.strictObject(
  {
    name: str().optional().describe('Group name; default <service>@<zone>#<index> (index among groups of that service and zone).'),
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

const attachmentSchema = z
  .union(
    [
      z.string(),
      z.number(),
      z.boolean(),
      z
        .strictObject({
          value: z.union([z.string(), z.number(), z.boolean()], { error: 'expected a string' }),
          fraction: fraction().optional().describe('Share of requests that carry the attachment.'),
          when: str('an expression such as "userId % 1000 < 5"')
            .optional()
            .describe('Per-request user id expression, e.g. "userId % 1000 < 5".'),
        })
        .superRefine((v, ctx) => {
          if (v.fraction !== undefined && v.when !== undefined) {
            ctx.addIssue({ code: 'custom', path: ['when'], message: 'give either fraction or when, not both' });
          }
        }),
    ],
    { error: 'expected a string, or { value, fraction } or { value, when }' },
  )
  .describe('A plain string tags every request; { value, fraction } a share; { value, when } by user id.');

const consumerSchema = z.strictObject(
  {
    application: str().optional().describe('Consumer application name; default consumer-<index>.'),
    zone: str('a zone name'),
    instances: int(1).default(1).describe('Consumer instances, each with its own directory and balancer state.'),
    rate: rateSchema.describe('Total request rate of the group.'),
    arrival: z.enum(['poisson', 'constant'], { error: 'expected poisson or constant' }).default('poisson'),
    calls: z
      .record(
        z.string(),
        z.number({ error: 'expected a weight > 0' }).positive({ error: 'expected a weight > 0' }),
        { error: 'expected a map of service.method to weight' },
      )
      .describe('`service.method: weight` (split at the last dot).'),
    reference: z
      .record(z.string(), referenceSchema, { error: 'expected a map of service name to reference attributes' })
      .default({})
      .describe('<dubbo:reference> attributes per service.'),
    consumerDefaults: methodReferenceSchema.prefault({}).describe('<dubbo:consumer> defaults, below interface and method level.'),
    attachments: z.record(z.string(), attachmentSchema, { error: 'expected a map of attachments' }).default({}),
    registries: z.array(str('a registry name')).optional().describe('Registries to subscribe to (default: all).'),
    userIds: int(1).default(1_000_000).describe('Distinct user ids for `when:` attachments.'),
    threads: int(1)
      .optional()
      .describe(
        "Entry pool per instance (e.g. Tomcat's 200): requests one instance serves at once; an arrival finding all busy ends at once as rejected (cause entry). Default: unbounded.",
      ),
    dubbo: dubboSchema.optional().describe("This group's Dubbo release and switches (SPEC 2.11); wins over the top-level one."),
  },
  { error: onType('expected a consumer group map { application, zone, instances, rate, calls, ... }') },
);

const routerService = str('a service name').optional().describe('Limit the rule to one service.');
const ruleText = z
  .union([z.string(), z.record(z.string(), z.unknown())], { error: 'expected a rule: text or a map' })
  .describe('URL rule text, Dubbo Admin YAML text, or the YAML as a map.');

/** A router entry (SPEC 2.6). */
export const routerSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('condition'),
      rule: ruleText,
      force: bool().optional(),
      service: routerService,
    }),
    z.strictObject({ type: z.literal('tag'), rule: ruleText, service: routerService }),
    z.strictObject({
      type: z.literal('zone'),
      fallback: z
        .union(
          [
            bool(),
            z.literal('nearest'),
            z.array(str('a zone name'), { error: 'expected a list of zone names' }).min(1, { error: 'expected at least one zone' }),
          ],
          { error: 'expected true, false, nearest or a list of zones such as [zoneB, zoneC]' },
        )
        .default(true)
        .describe(
          'When the zone has none: true = all providers, false = strict (none), nearest = the nearest zone that has providers (median RTT from the consumer zone, then the next), [zoneB, zoneC] = the first listed zone that has providers (zonesim extensions).',
        ),
      zoneFrom: z.enum(['attachment', 'local'], { error: 'expected attachment or local' }).default('local'),
      service: routerService,
    }),
    z.strictObject({
      type: z.literal('plugin'),
      module: str('a module path such as ./my-router.js'),
      options: z.record(z.string(), z.unknown()).default({}),
      service: routerService,
    }),
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union' ? 'expected type to be one of condition, tag, zone, plugin' : 'expected a router map { type, ... }',
  },
).meta({ id: 'Router', description: 'A routing rule (SPEC 2.6): condition, tag, zone or plugin.' });

const zonePair = z
  .tuple([str('a zone name'), str('a zone name')], { error: 'expected two zone names [Z1, Z2]' })
  .describe('[Z1, Z2]');
const instanceRef = () =>
  str('an instance such as trade-a#3').describe('One instance: <provider group>#<index>, 0-based in start order.');
const targetShape = () => ({
  zone: str('a zone name').optional(),
  service: str('a service name').optional(),
  group: str('a provider group name').optional(),
  instance: instanceRef().optional(),
  count: int(0).optional().describe('How many instances (default: all).'),
  fraction: fraction().optional().describe('Share of the instances (default: all).'),
});
const countOrFraction = (v: { count?: number; fraction?: number }, ctx: z.RefinementCtx) => {
  if (v.count !== undefined && v.fraction !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['fraction'], message: 'give either count or fraction, not both' });
  }
};
const target = () =>
  z
    .strictObject(targetShape(), { error: onType('expected { zone?, service?, group?, instance?, count? | fraction? }') })
    .superRefine(countOrFraction);
const crashTarget = () =>
  z
    .strictObject(
      {
        ...targetShape(),
        mode: z
          .enum(['blackhole', 'crash'], { error: 'expected blackhole or crash' })
          .optional()
          .describe('crash (default: connections refused at once) or blackhole (calls time out).'),
      },
      { error: onType('expected { zone?, service?, group?, instance?, count? | fraction?, mode? }') },
    )
    .superRefine(countOrFraction);

/** The action keys of a fault entry; exactly one per entry. */
export const FAULT_ACTIONS = [
  'zoneDown', 'zoneUp', 'crash', 'restart', 'slowdown', 'partition', 'heal', 'registryPartition',
  'registryDown', 'rtt', 'scale', 'rule', 'pushSwitch', 'rollingRestart', 'traffic',
] as const;

const zoneDownMode = z.enum(['blackhole', 'crash'], { error: 'expected blackhole or crash' });

const faultSchema = z
  .strictObject(
    {
      at: durationSchema.describe('When the fault happens (simulated time).'),
      for: durationSchema.optional().describe('Undo the fault after this long.'),
      mode: zoneDownMode.optional().describe('With zoneDown: blackhole (default; calls time out) or crash (refused at once).'),
      zoneDown: z
        .union(
          [
            str('a zone name'),
            z
              .strictObject({
                zone: str('a zone name').optional(),
                group: str('a provider group name').optional(),
                instance: instanceRef().optional(),
                mode: zoneDownMode.optional(),
              })
              .superRefine((v, ctx) => {
                const n = [v.zone, v.group, v.instance].filter((x) => x !== undefined).length;
                if (n !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of zone, group, instance' });
              }),
          ],
          { error: 'expected a zone name or { zone | group | instance, mode }' },
        )
        .optional()
        .describe("The zone's providers stop answering and heartbeating."),
      zoneUp: str('a zone name').optional(),
      crash: crashTarget().optional(),
      restart: target().optional(),
      slowdown: z
        .strictObject({
          zone: str('a zone name').optional(),
          group: str('a provider group name').optional(),
          instance: instanceRef().optional(),
          service: str('a service name').optional(),
          method: str('a method name').optional(),
          factor: z.number({ error: 'expected a factor > 0' }).positive({ error: 'expected a factor > 0' }),
        })
        .optional()
        .describe('Multiply service times by factor.'),
      partition: zonePair.optional(),
      heal: zonePair.optional(),
      registryPartition: str('a zone name').optional().describe('Cut the zone off from the registry.'),
      registryDown: z.literal(true, { error: 'expected true' }).optional(),
      rtt: z
        .strictObject({ between: zonePair, set: distSchema })
        .optional()
        .describe('Replace the RTT between two zones.'),
      scale: z
        .strictObject({
          zone: str('a zone name').optional(),
          service: str('a service name').optional(),
          group: str('a provider group name').optional(),
          count: int(0),
        })
        .optional(),
      rule: z
        .strictObject({
          add: routerSchema.optional(),
          replace: routerSchema.optional(),
          remove: routerSchema.optional(),
          index: int(0).optional().describe('Position of the router to replace or remove.'),
        })
        .superRefine((v, ctx) => {
          const ops = (['add', 'replace', 'remove'] as const).filter((k) => v[k] !== undefined);
          if (ops.length !== 1) {
            ctx.addIssue({
              code: 'custom',
              message: `expected exactly one of add, replace, remove, found ${ops.length === 0 ? 'none' : ops.join(' and ')}`,
            });
          }
        })
        .optional(),
      pushSwitch: z
        .union([z.enum(['off', 'on']), z.boolean()], { error: 'expected off or on' })
        .optional()
        .describe('off stops all registry pushes.'),
      rollingRestart: z
        .strictObject({
          service: str('a service name').optional(),
          zone: str('a zone name').optional(),
          group: str('a provider group name').optional(),
          instance: instanceRef().optional(),
          batch: int(1).default(1),
          interval: durationSchema.prefault('10s'),
        })
        .optional(),
      traffic: z
        .strictObject(
          {
            consumer: str('a consumer application name'),
            zone: str('a zone name').optional().describe("Only the consumer's groups in this zone."),
            rate: rateSchema.optional().describe('The new arrival rate of each matching group.'),
            factor: z
              .number({ error: 'expected a factor >= 0' })
              .min(0, { error: 'expected a factor >= 0' })
              .optional()
              .describe("Multiplies each matching group's current arrival rate."),
          },
          { error: onType('expected { consumer, zone?, rate | factor }') },
        )
        .superRefine((v, ctx) => {
          if ((v.rate === undefined) === (v.factor === undefined)) {
            ctx.addIssue({
              code: 'custom',
              ...(v.rate === undefined ? {} : { path: ['factor'] }),
              message: v.rate === undefined ? 'expected rate or factor, found neither' : 'give either rate or factor, not both',
            });
          }
        })
        .optional()
        .describe("Changes a consumer group's arrival rate (a peak; users moved off a dead zone)."),
    },
    { error: onType('expected a fault map { at, <action> }') },
  )
  .superRefine((v, ctx) => {
    const actions = FAULT_ACTIONS.filter((k) => v[k] !== undefined);
    if (actions.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `expected exactly one action (${FAULT_ACTIONS.join(', ')}), found ${actions.length === 0 ? 'none' : actions.join(' and ')}`,
      });
    }
    if (v.mode !== undefined && typeof v.zoneDown !== 'string') {
      ctx.addIssue({ code: 'custom', path: ['mode'], message: 'mode goes with zoneDown: <zone>' });
    }
  })
  .meta({ id: 'Fault', description: 'At `at`, one action; `for` undoes it after that long.' });

const strategySchema = z.strictObject(
  {
    description: str().optional(),
    reference: partialReferenceSchema
      .catchall(partialReferenceSchema)
      .optional()
      .describe('Merged into every reference of every consumer group; keys naming a service limit an override to it.'),
    routers: z.array(routerSchema, { error: 'expected a list of routers' }).optional().describe('Replaces the routers.'),
    addRouters: z
      .array(routerSchema, { error: 'expected a list of routers' })
      .optional()
      .describe("Appended to the scenario's routers."),
    registry: partialRegistrySchema.optional().describe('Merged into the registry (e.g. emptyProtection: true).'),
    dubbo: dubboSchema.optional().describe("Dubbo release and switches applied to every group, over the groups' own (SPEC 2.11)."),
    providers: z
      .record(
        z.string(),
        z.strictObject(
          {
            threadpool: z.enum(THREAD_POOLS, { error: 'expected fixed or eager' }).optional(),
            threads: int(1).optional(),
            queues: z.int({ error: 'expected an integer' }).optional(),
            exports: z.record(z.string(), exportSchema, { error: 'expected a map of service name to export settings' }).optional(),
            isolation: z
              .strictObject({ dynamic: dynamicIsolationSchema.optional() }, { error: onType('expected { dynamic: {...} }') })
              .optional(),
          },
          { error: onType('expected provider overrides { threadpool?, threads?, queues?, exports?, isolation? }') },
        ),
        { error: 'expected a map of provider group name to overrides' },
      )
      .optional()
      .describe('zonesim extension: provider-side overrides by provider group (pools, isolation, filters).'),
  },
  { error: onType('expected a strategy map { description?, reference?, routers?, addRouters?, registry?, providers? }') },
);

const zoneSchema = z.strictObject(
  {
    cidr: str('a CIDR such as 10.10.0.0/16')
      .optional()
      .describe('IPv4 CIDR the instance IPs are drawn from; default 10.10.0.0/16, 10.20.0.0/16, ... in order.'),
  },
  { error: onType('expected a zone map { cidr }') },
);

const networkSchema = z.strictObject(
  {
    rtt: z
      .record(z.string(), distSchema, { error: 'expected a map of zone pair to distribution' })
      .default({})
      .describe('Round trips: same-zone (default 0.2ms), default (2ms), A<->B (symmetric), A->B (one way).'),
  },
  { error: onType('expected a network map { rtt }') },
);

/** The same rule as `--seed` (cli/seed-options.ts). */
const EXPECTED_SEED = 'expected a non-negative safe integer (0 to 9007199254740991)';

/** The whole raw scenario file. */
export const rawScenarioSchema = z
  .strictObject(
    {
      $schema: str().optional().describe('JSON Schema reference for editors.'),
      name: str().optional().describe('Scenario name; default the file name without extension.'),
      description: str().default(''),
      seed: z
        .int({ error: EXPECTED_SEED })
        .min(0, { error: EXPECTED_SEED })
        .max(Number.MAX_SAFE_INTEGER, { error: EXPECTED_SEED })
        .default(1)
        .describe('Seed of the run (default 1): a non-negative safe integer, like --seed.'),
      duration: simulatedTimeSchema.prefault('60s').describe('Simulated time (default 60s).'),
      warmup: simulatedTimeSchema.prefault('5s').describe('Excluded from metrics (default 5s).'),
      bucket: bucketSchema.prefault('1s').describe('Timeline bucket width (default 1s).'),
      zones: z
        .record(z.string(), zoneSchema, { error: 'expected a map of zone name to { cidr }' })
        .describe('Zones (data centers) by name.'),
      network: networkSchema.prefault({}),
      registry: registrySchema.prefault({}),
      registries: z
        .record(z.string(), partialRegistrySchema, { error: 'expected a map of registry name to registry' })
        .default({})
        .describe('Multi-registry: registries by name (each with zone, preferred, weight); unset fields inherit from registry.'),
      services: z
        .record(z.string(), serviceSchema, { error: 'expected a map of service name to { methods }' })
        .describe('Services by interface name.'),
      providers: z.array(providerSchema, { error: 'expected a list of provider groups' }).describe('Provider groups.'),
      consumers: z.array(consumerSchema, { error: 'expected a list of consumer groups' }).describe('Consumer groups.'),
      routers: z.array(routerSchema, { error: 'expected a list of routers' }).default([]).describe('Routing rules (SPEC 2.6).'),
      faults: z.array(faultSchema, { error: 'expected a list of faults' }).default([]).describe('Fault timeline (SPEC 2.8).'),
      propagation: propagationSchema.optional().describe('Tag propagation of every provider group through call graphs (SPEC 2.7).'),
      dubbo: dubboSchema.optional().describe("The estate's Dubbo release: '3.3' (default) or '2.7', or { version, <switch>: ... } (SPEC 2.11)."),
      strategies: z
        .record(z.string(), strategySchema, { error: 'expected a map of strategy name to overrides' })
        .default({})
        .describe('Named overrides that `compare` runs side by side (SPEC 2.9).'),
    },
    { error: onType('expected a scenario map with zones, services, providers and consumers') },
  )
  .describe('A zonesim scenario (SPEC 2).');

/** The parsed raw file: defaults applied and units converted, file key names. */
export type RawScenario = z.output<typeof rawScenarioSchema>;
export type RawReference = z.output<typeof referenceSchema>;
export type RawPartialReference = z.output<typeof partialReferenceSchema>;
export type RawRegistry = z.output<typeof registrySchema>;
export type RawPartialRegistry = z.output<typeof partialRegistrySchema>;
export type RawRouter = z.output<typeof routerSchema>;
export type RawFault = z.output<typeof faultSchema>;
export type RawMethodReference = z.output<typeof methodReferenceSchema>;

/** Parses one strategy's `reference` service-keyed value (used after the service name is known). */
export const strategyReferenceSchema = partialReferenceSchema;

/** The JSON Schema (draft 2020-12) of scenario files, for editor completion (`zonesim schema`). */
export function scenarioJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(rawScenarioSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'zonesim scenario',
    ...schema,
  };
}
