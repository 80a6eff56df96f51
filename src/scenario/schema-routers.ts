/**
 * The router entries of the scenario schema (SPEC 2.6): condition and tag rules (as text or as a map),
 * the zone router with its fallback, and plugin routers. Rule text is parsed when the router chain is
 * built, not here.
 */
import { z } from 'zod';
import { bool, str } from './schema-fields.js';

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
