/**
 * The strategies of the scenario schema (SPEC 2.9): named overrides that `compare` runs side by side,
 * merged into the references, routers, registry and provider groups of the scenario. Each part reuses
 * its section's schema without defaults; the built-in strategies are strategies.ts's.
 */
import { z } from 'zod';
import { int, onType, str } from './schema-fields.js';
import { dynamicIsolationSchema, exportSchema, THREAD_POOLS } from './schema-providers.js';
import { partialReferenceSchema } from './schema-reference.js';
import { partialRegistrySchema } from './schema-registry.js';
import { routerSchema } from './schema-routers.js';
import { dubboSchema } from './dubbo-schema.js';
import { sentinelSchema } from './schema-sentinel.js';

/** One strategy (`strategies.<name>`): overrides of references, routers, registry and provider groups. */
export const strategySchema = z.strictObject(
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
    sentinel: sentinelSchema
      .optional()
      .describe("Replaces the top-level sentinel: block (SPEC 2.13); {} runs without top-level Sentinel rules. Groups' own blocks stay."),
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
