/**
 * The fault timeline of the scenario schema (SPEC 2.8): one action per entry at `at` (zone down and
 * up, crash, restart, slowdown, partitions, registry faults, RTT, scale, rules, push switch, rolling
 * restart, traffic), undone after `for`, with the targets (zone, service, group, instance, count or
 * fraction) the actions pick providers by. The names a fault refers to are checked by cross-check.ts.
 */
import { z } from 'zod';
import { sentinelFaultSchema } from './schema-sentinel.js';
import { fraction, int, onType, str } from './schema-fields.js';
import { routerSchema } from './schema-routers.js';
import { distSchema, durationSchema, rateSchema } from './units.js';

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
  'registryDown', 'rtt', 'scale', 'rule', 'pushSwitch', 'rollingRestart', 'traffic', 'roomDown', 'roomUp', 'sentinel',
] as const;

const zoneDownMode = z.enum(['blackhole', 'crash'], { error: 'expected blackhole or crash' });

/** A fault entry: `at`, exactly one action of `FAULT_ACTIONS`, and `for` to undo it. */
export const faultSchema = z
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
      roomDown: str('a zone name')
        .optional()
        .describe("The whole room goes dark: the zone's providers, consumers (in-flight calls lost) and registry nodes."),
      roomUp: str('a zone name').optional().describe('The room comes back (undoes roomDown).'),
      sentinel: sentinelFaultSchema
        .optional()
        .describe("A Sentinel datasource update (SPEC 2.13): the rule kinds given replace those of `application`'s JVMs (default all)."),
      shift: z
        .record(
          str('a zone name'),
          z.number({ error: 'expected a weight > 0' }).positive({ error: 'expected a weight > 0' }),
          { error: onType('expected { <zone>: <share>, ... }') },
        )
        .optional()
        .describe("With roomDown: the dark room's consumer traffic moves to these rooms by share, as a GSLB would."),
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
    if (v.shift !== undefined && v.roomDown === undefined) {
      ctx.addIssue({ code: 'custom', path: ['shift'], message: 'shift goes with roomDown: <zone>' });
    }
  })
  .meta({ id: 'Fault', description: 'At `at`, one action; `for` undoes it after that long.' });
