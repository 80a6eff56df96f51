/**
 * Which provider URLs a consumer subscription accepts: Dubbo's `UrlUtils.isMatch` on group
 * (`*`, comma lists), version (`*`) and the `enabled` flag. Registries apply it before pushing, so a
 * group or version mismatch looks to the consumer like an empty provider list.
 * Follows dubbo-common `utils/UrlUtils.java` (`isMatch`, `isMatchCategory` left out: providers only).
 */
import type { URL } from './url.js';

const ANY = '*';

/** True when the consumer's subscription matches this provider URL. */
export function isMatch(consumerUrl: URL, providerUrl: URL): boolean {
  if (providerUrl.getParameter('enabled', 'true') === 'false') return false;
  const consumerGroup = consumerUrl.getParameter('group') ?? '';
  const providerGroup = providerUrl.getParameter('group') ?? '';
  const groupOk =
    consumerGroup === ANY ||
    consumerGroup === providerGroup ||
    (consumerGroup.includes(',') && consumerGroup.split(',').map((g) => g.trim()).includes(providerGroup));
  if (!groupOk) return false;
  const consumerVersion = consumerUrl.getParameter('version') ?? '';
  const providerVersion = providerUrl.getParameter('version') ?? '';
  return consumerVersion === ANY || consumerVersion === providerVersion;
}
