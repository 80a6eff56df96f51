/**
 * One attribute of a consumer group's reference to a method, with Dubbo's precedence (method level,
 * interface level, consumer defaults): a lookup over the model that the estimate and the analyses share.
 */
import type { ConsumerGroupSpec, ReferenceSpec } from './types.js';

type MethodReference = Omit<ReferenceSpec, 'methods'>;

/** A reference attribute with Dubbo's precedence: method level, interface level, consumer defaults. */
export function referenceAttribute<K extends keyof MethodReference>(c: ConsumerGroupSpec, service: string, method: string, key: K): MethodReference[K] {
  const ref = c.reference[service];
  return ref?.methods[method]?.[key] ?? ref?.[key] ?? c.consumerDefaults[key];
}
