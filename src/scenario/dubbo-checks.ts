/**
 * Scenario checks against what Dubbo itself does with a setting: URL parameters Dubbo fails on
 * (`hash.nodes` below 4). Like cross-check.ts it reads the RAW document defensively and returns path
 * issues, so that a problem is reported at its field with the others.
 */
import type { PathIssue } from './zod-issues.js';
import { HASH_NODES } from '../dubbo/constants.js';
import { DEFAULT_REPLICA_NUMBER } from '../dubbo/loadbalance/consistent-hash-load-balance.js';

type Obj = Record<string, unknown>;
type Path = Array<string | number>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

// The fields that hold URL parameters: a reference's (and a reference method's) `parameters`, a provider
// group's and an export's `params`.
const PARAMETER_FIELDS = new Set(['parameters', 'params']);

/**
 * `hash.nodes` (or `<method>.hash.nodes`) below 4 anywhere a URL parameter is written: consistenthash
 * builds `hash.nodes / 4` digests per provider (ConsistentHashLoadBalance.java:88), so its ring is empty
 * and every call it balances fails with a NullPointerException (:116-118). A value Dubbo cannot parse
 * as an integer is left to the run.
 */
function hashNodeIssues(value: unknown, path: Path, issues: PathIssue[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => hashNodeIssues(v, [...path, i], issues));
    return;
  }
  if (!isObj(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (PARAMETER_FIELDS.has(k) && isObj(v)) {
      for (const [param, n] of Object.entries(v)) {
        if (param !== HASH_NODES && !param.endsWith(`.${HASH_NODES}`)) continue;
        const text = String(n).trim();
        if (!/^[+-]?\d+$/.test(text) || Number(text) >= 4) continue;
        issues.push({
          path: [...path, k, param],
          message:
            `${param} ${text} is below 4: consistenthash puts hash.nodes/4 x 4 points per provider on its ring, so the ring ` +
            `would be empty and Dubbo fails every call it balances with a NullPointerException (ConsistentHashLoadBalance.selectForKey)`,
          hint: `use 4 or more (Dubbo's default is ${DEFAULT_REPLICA_NUMBER})`,
        });
      }
    } else hashNodeIssues(v, [...path, k], issues);
  }
}

/** Settings Dubbo fails on, as path issues. */
export function dubboChecks(raw: unknown): PathIssue[] {
  const issues: PathIssue[] = [];
  hashNodeIssues(raw, [], issues);
  return issues;
}
