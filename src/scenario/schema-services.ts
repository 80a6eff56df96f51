/**
 * The services section of the scenario schema: each service's methods with their service time, and
 * the call graph (SPEC 2.10), the downstream calls a method makes while it executes; with the tag
 * `propagation` (SPEC 2.7) that decides whether a tag travels along those calls. Which provider
 * groups export a service is schema-providers.ts's.
 */
import { z } from 'zod';
import { referenceSchema } from './schema-reference.js';
import { bool, fraction, onType, str } from './schema-fields.js';
import { distSchema } from './units.js';

/** SPEC 2.7 `propagation`: the tag-carrying filter of full-link gray / lane set-ups (top level or per provider group). */
export const propagationSchema = z
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

/** A service (`services.<interface>`): its methods by name. */
export const serviceSchema = z.strictObject(
  {
    methods: z.record(z.string(), methodSchema, { error: 'expected a map of method name to method' }),
  },
  { error: onType('expected a service map { methods: {...} }') },
);
