/**
 * How Dubbo names an interface-level service in Nacos and which names a subscription watches:
 * `providers:<interface>:<version>:<group>` (category, interface, version, group; empty parts
 * stay empty). A subscription whose group and version are concrete watches exactly its own name; one
 * with `*` or a comma list in either watches every existing name of the interface that
 * `NacosServiceName.isCompatible` accepts, listed when it subscribes (Dubbo's
 * `getServicesOfServer`), and aggregates their instances (`NacosAggregateListener`). Only
 * naming: what a push carries is the registry model's. Follows dubbo-registry-nacos
 * `NacosServiceName.java` and `NacosRegistry.java` (`getServiceNames0`, `filterServiceNames`,
 * `isConformRules`).
 */

/** Nacos naming for Dubbo providers (`DEFAULT_CATEGORY`). */
const CATEGORY = 'providers';
const WILDCARD = '*';
const VALUE_SEPARATOR = ',';

/** The Nacos service of one interface-level registration or subscription. */
export function nacosServiceName(service: string, version: string | undefined, group: string | undefined): string {
  return `${CATEGORY}:${service}:${version ?? ''}:${group ?? ''}`;
}

/** The parts of a 4-segment name (`isConformRules`), or undefined for another name. */
export function parseNacosServiceName(name: string): { service: string; version: string; group: string } | undefined {
  const segments = name.split(':');
  if (segments.length !== 4 || segments[0] !== CATEGORY) return undefined;
  return { service: segments[1]!, version: segments[2]!, group: segments[3]! };
}

// Java's String.split(","): trailing empty strings are dropped.
function javaSplit(value: string): string[] {
  const parts = value.split(VALUE_SEPARATOR);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

const isWildcard = (value: string): boolean => value === WILDCARD;
const isRange = (value: string): boolean => value.includes(VALUE_SEPARATOR) && javaSplit(value).length > 1;
const isConcrete = (value: string): boolean => !isWildcard(value) && !isRange(value);
const isBlank = (value: string): boolean => value.trim() === '';

// NacosServiceName.matchRange: a blank range matches anything, a list its members.
function matchRange(range: string, value: string): boolean {
  if (isBlank(range)) return true;
  if (!isRange(range)) return false;
  return javaSplit(range).includes(value);
}

/** True when a subscription of this version and group watches one name (no `*`, no list). */
export function isConcreteQuery(version: string, group: string): boolean {
  return isConcrete(version) && isConcrete(group);
}

/**
 * `NacosServiceName.isCompatible` for a subscription (`version`, `group`) and an existing name of
 * the same interface. A wildcard version or group accepts every name, whatever the other part
 * (Dubbo returns early); otherwise each part must be equal, listed, or blank in the subscription.
 */
export function isCompatible(query: { version: string; group: string }, name: { version: string; group: string }): boolean {
  if (!isConcreteQuery(name.version, name.group)) return false;
  if (isWildcard(query.version) || isWildcard(query.group)) return true;
  if (query.version !== name.version && !matchRange(query.version, name.version)) return false;
  return query.group === name.group || matchRange(query.group, name.group);
}

/**
 * The names one subscription watches: its own name when concrete (whether or not it exists yet),
 * else the existing names (`known`, in the order the server lists them) it is compatible with.
 */
export function subscribedNames(
  service: string,
  query: { version?: string; group?: string },
  known: readonly string[],
): string[] {
  const version = query.version ?? '';
  const group = query.group ?? '';
  if (isConcreteQuery(version, group)) return [nacosServiceName(service, version, group)];
  return known.filter((n) => {
    const parts = parseNacosServiceName(n);
    return parts !== undefined && parts.service === service && isCompatible({ version, group }, parts);
  });
}
