/**
 * The consumer groups of the scenario schema (SPEC 2.4): zone, instances, arrival rate and the
 * `service.method` mix they call, `<dubbo:reference>` attributes per service and `<dubbo:consumer>`
 * defaults, and the attachments (tags) requests carry (SPEC 2.7). The reference attributes are
 * schema-reference.ts's.
 */
import { z } from 'zod';
import { fraction, int, onType, repeatSchema, str } from './schema-fields.js';
import { methodReferenceSchema, referenceSchema } from './schema-reference.js';
import { rateSchema } from './units.js';
import { dubboSchema } from './dubbo-schema.js';
import { sentinelSchema } from './schema-sentinel.js';

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

/** A consumer group: `instances` consumer processes in one zone sharing a request rate. */
export const consumerSchema = z.strictObject(
  {
    application: str().optional().describe('Consumer application name; default consumer-<index>.'),
    repeat: repeatSchema,
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
    sentinel: sentinelSchema.optional().describe("Sentinel rules this group's JVMs load (SPEC 2.13), kind by kind over the top-level ones."),
    cohorts: z
      .enum(['auto', 'on', 'off'], { error: 'expected auto, on or off' })
      .optional()
      .describe('SPEC 2.12: simulate exchangeable instances as one cohort (on), each alone (off), or decide (auto, the default): see docs/cohorts.md.'),
    representatives: int(2).optional().describe('A cohort\'s representative instances (default 32), each standing for an equal share of the instances.'),
  },
  { error: onType('expected a consumer group map { application, zone, instances, rate, calls, ... }') },
);
