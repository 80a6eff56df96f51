/**
 * Which Dubbo release `route` and `select` answer as. The consumer's release decides routing and
 * balancing (its jar runs them), so: the consumer URL's `release=` when it has one; else `--dubbo`;
 * else the `release=` of the pasted provider URLs when they all agree (a fleet usually runs one
 * release on both sides); else 3.3. `--dubbo` against a consumer URL that says otherwise is bad
 * input. Messages print the release's text ("using the dubbo version 2.7.23"), the consumer URL's own
 * when it gives one (Dubbo prints `Version.getVersion()`, its own jar's).
 */
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease, type DubboVersion } from '../dubbo/release.js';
import type { URL } from '../dubbo/url.js';
import { UsageError } from '../scenario/io.js';

/** The release chosen and why, in words for the output. */
export interface PastedRelease {
  release: DubboRelease;
  /** Where it comes from: `release=2.7.8 on --consumer`, `--dubbo 2.7`, ... */
  source: string;
}

/** The profile of a `release=` value: 2.x is the 2.7 profile, 3.x the 3.3 one; anything else none. */
export function versionOfRelease(text: string | undefined): DubboVersion | undefined {
  if (text === undefined) return undefined;
  if (/^2\.\d/.test(text.trim())) return '2.7';
  if (/^3\.\d/.test(text.trim())) return '3.3';
  return undefined;
}

function profile(version: DubboVersion): DubboRelease {
  return version === '2.7' ? DUBBO_2_7 : DUBBO_3_3;
}

/** The release `route`/`select` answer as (see the module comment); throws UsageError on a contradiction. */
export function pastedRelease(flag: string | undefined, consumer: URL | undefined, providers: readonly URL[]): PastedRelease {
  if (flag !== undefined && flag !== '2.7' && flag !== '3.3') {
    throw new UsageError(`--dubbo: expected 2.7 or 3.3 (zonesim models Dubbo 2.7.23 and 3.3), found "${flag}"`);
  }
  const own = consumer?.getParameter('release');
  const ownVersion = versionOfRelease(own);
  if (ownVersion !== undefined) {
    if (flag !== undefined && flag !== ownVersion) {
      throw new UsageError(`--dubbo ${flag} contradicts release=${own} on --consumer: the consumer's own release routes and balances; drop one of them`);
    }
    return { release: { ...profile(ownVersion), text: own!.trim() }, source: `release=${own!.trim()} on --consumer` };
  }
  if (flag !== undefined) return { release: profile(flag), source: `--dubbo ${flag}` };
  const given = new Set(providers.map((p) => p.getParameter('release')).filter((r): r is string => r !== undefined && versionOfRelease(r) !== undefined));
  const versions = new Set([...given].map((r) => versionOfRelease(r)!));
  if (versions.size === 1) {
    const version = [...versions][0]!;
    return { release: profile(version), source: `release=${[...given].join(', ')} of the providers` };
  }
  if (versions.size > 1) return { release: DUBBO_3_3, source: `the providers' releases differ (${[...given].join(', ')}): the default 3.3; give --dubbo` };
  return { release: DUBBO_3_3, source: 'the default' };
}
