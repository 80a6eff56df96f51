/**
 * The error for a routing rule (condition or tag, URL text or YAML) that does not parse: bad
 * input, reported to users as one line. Routing itself never throws it.
 */

/** A rule that does not parse (Dubbo's ParseException / IllegalStateException, or a malformed YAML rule). */
export class RouterRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RouterRuleError';
  }
}
