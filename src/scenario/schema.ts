/**
 * The RAW scenario file format (SPEC 2) as a zod 4 schema: every section, every default, strict
 * objects everywhere (an unknown key is an error). Parsing with it yields the file's values with
 * defaults applied and units converted (ms, per second, `DistSpec`) but still under the file's
 * key names; `normalize.ts` maps that onto `Scenario`, and `cross-check.ts` checks the names that
 * refer to each other (zones, services, methods, groups). Also the source of `zonesim schema`.
 * This file holds the top level, zones and network; each other section has its own file
 * (`schema-reference.ts`, `schema-registry.ts`, `schema-services.ts`, `schema-providers.ts`,
 * `schema-consumers.ts`, `schema-routers.ts`, `schema-faults.ts`, `schema-strategies.ts`), built
 * from the field builders of `schema-fields.ts`.
 *
 * Top-level defaults that SPEC leaves open: seed 1, duration 60s, warmup 5s, bucket 1s.
 * Defaults that depend on context (provider group names, registry pushLag by type, zone CIDRs,
 * consumer application names) are applied by `normalize.ts` and documented in the descriptions.
 */
import { z } from 'zod';
import { onType, str } from './schema-fields.js';
import { methodReferenceSchema, partialReferenceSchema, referenceSchema } from './schema-reference.js';
import { partialRegistrySchema, registrySchema } from './schema-registry.js';
import { propagationSchema, serviceSchema } from './schema-services.js';
import { providerSchema } from './schema-providers.js';
import { consumerSchema } from './schema-consumers.js';
import { routerSchema } from './schema-routers.js';
import { faultSchema } from './schema-faults.js';
import { strategySchema } from './schema-strategies.js';
import { bucketSchema, distSchema, simulatedTimeSchema } from './units.js';
import { dubboSchema } from './dubbo-schema.js';
import { sentinelSchema } from './schema-sentinel.js';

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
      sentinel: sentinelSchema.optional().describe("Sentinel rules every application's JVMs load (SPEC 2.13): flowRules, degradeRules, systemRules, paramFlowRules, fallback."),
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
    // Top-level x-* keys are ignored (SPEC 2.12, templates.ts): a home for YAML anchors.
    patternProperties: { '^x-': {} },
  };
}
