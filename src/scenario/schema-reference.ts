/**
 * `<dubbo:reference>` attributes in the scenario schema (SPEC 2.4): per service with `methods.<m>.*`
 * (`referenceSchema`), per method and as `consumerDefaults`, and without defaults for strategy
 * overrides; load balancer and cluster names are checked against the port's extension tables at
 * validation time. Where a reference is used (consumers, call graphs, strategies) is the other sections'.
 */
import { z } from 'zod';
import { clusters, loadBalances } from '../dubbo/extensions.js';
import { suggestionOfKind } from './did-you-mean.js';
import { bool, int, onType, str, urlParams } from './schema-fields.js';
import { isModulePath } from './plugin-refs.js';
import { durationSchema } from './units.js';

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
export const methodReferenceSchema = z.strictObject(referenceAttrs(false), {
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
export const partialReferenceSchema = z.strictObject(
  {
    ...referenceAttrs(true),
    methods: z.record(z.string(), partialMethodReferenceSchema).optional(),
  },
  { error: onType('expected a map of reference attributes (timeout, retries, loadbalance, ...)') },
);
