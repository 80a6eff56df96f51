/**
 * The registry section of the scenario schema (SPEC 2.5): `registry:` with its defaults by field, and
 * the same fields without defaults for `registries:` entries (which inherit from `registry:`) and
 * strategy overrides. The defaults that depend on the registry type (pushLag) are normalize.ts's.
 */
import { z } from 'zod';
import { bool, int, onType, str } from './schema-fields.js';
import { bandwidthSchema, distSchema, durationSchema, rateSchema, sizeSchema } from './units.js';

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
    servers: z
      .record(str('a zone name'), int(1), { error: onType('expected { <zone>: <number of nodes>, ... }') })
      .optional()
      .describe('The registry as a server (SPEC 2.5): ZooKeeper ensemble / Nacos cluster nodes per zone; clients spread over them.'),
    capacity: z
      .strictObject(
        {
          bandwidth: bandwidthSchema.optional().describe('Per node and NIC direction, e.g. 1Gbps.'),
          requests: rateSchema.optional().describe('Requests a node serves per second (registrations, beats, pings, reads).'),
        },
        { error: onType('expected { bandwidth?, requests? }') },
      )
      .optional()
      .describe('Per-node capacity; unset: unlimited (pushes delayed by pushLag only).'),
    pushRate: z
      .strictObject(
        { interval: durationSchema.refine((ms) => ms > 0, { error: 'expected an interval > 0 such as 10s' }) },
        { error: onType('expected { interval }') },
      )
      .optional()
      .describe('Push rate control: changes to one list within an interval are merged into one push per subscriber.'),
    pushDelay: durationSchema
      .optional()
      .describe("nacos: the server's push delay (nacos.naming.push.pushTaskDelay); default 500ms when the registry is a server, 0 pushes at once."),
    simplified: bool().optional().describe('dubbo.registry.simplified: interface-level URLs carry only the keys Dubbo keeps.'),
    extraKeys: z
      .array(str('a URL parameter name'), { error: onType('expected a list of URL parameter names') })
      .optional()
      .describe('dubbo.registry.extra-keys: parameters a simplified URL keeps besides Dubbo\'s own.'),
    juteMaxBuffer: sizeSchema.optional().describe('zookeeper: the largest reply a client reads (jute.maxbuffer, default 1MB).'),
    preferred: d(bool(), false, 'Multi-registry: `preferred=true` on the registry URL.'),
    weight: d(int(0), 100, 'Multi-registry: registry URL `weight`.'),
  };
}

/** The default registry (`registry:`). */
export const registrySchema = z
  .strictObject(registryShape(true), { error: onType('expected a registry map (type, zone, pushLag, ...)') })
  .describe('The registry (SPEC 2.5).');

/** A registry without defaults: `registries:` entries (which inherit from `registry:`) and strategy overrides. */
export const partialRegistrySchema = z.strictObject(registryShape(false), {
  error: 'expected a registry map (type, zone, pushLag, ...)',
});
