/**
 * How far a scenario's YAML aliases may expand. The yaml library refuses a document whose aliases expand
 * to more than `maxAliasCount` values (each use of an anchor counts the aliases inside it, so nested
 * anchors multiply: the "billion laughs" file). A fixed bound refused honest estates: the seed scale's
 * pattern, `x-call: &call {...}` and one `*call` per service, stopped at 10,000 services ("Excessive
 * alias count indicates a resource exhaustion attack"). The bound now grows with the aliases written in
 * the file, so an estate of flat aliases always loads, and what the aliases expand to stays proportional to
 * the file's own length: nested anchors that multiply are refused as before.
 */
import { visit, type Document } from 'yaml';

/** The bound for a file with few aliases (the yaml library's own default is 100). */
export const MIN_ALIAS_COUNT = 10_000;
/** Values the aliases may expand to per alias written in the file. */
export const ALIAS_COUNT_PER_ALIAS = 4;

/** `maxAliasCount` for `doc.toJS`: ALIAS_COUNT_PER_ALIAS per alias written in `doc`, at least MIN_ALIAS_COUNT. */
export function maxAliasCountOf(doc: Document): number {
  let aliases = 0;
  visit(doc, {
    Alias() {
      aliases++;
    },
  });
  return Math.max(MIN_ALIAS_COUNT, ALIAS_COUNT_PER_ALIAS * aliases);
}

/** The yaml library's refusal of an alias bomb, said in zonesim's terms (any other message as it is). */
export function aliasErrorMessage(message: string, maxAliasCount: number): string {
  if (!message.startsWith('Excessive alias count')) return message;
  return (
    `${message}: its aliases expand to more than ${maxAliasCount.toLocaleString('en-US')} values ` +
    `(${ALIAS_COUNT_PER_ALIAS} per alias written, at least ${MIN_ALIAS_COUNT.toLocaleString('en-US')}); ` +
    'an anchor whose aliases hold aliases of another anchor multiplies them'
  );
}
