/**
 * The port's release switches (dubbo/release.ts `DubboRelease`) for a group's resolved profile
 * (model/dubbo-profile.ts): the release text of its version and the port-side switches as the
 * profile resolved them. One object per profile, so every instance of a group shares it.
 */
import { dubboRelease, type DubboRelease } from '../dubbo/release.js';
import type { DubboProfile } from '../model/dubbo-profile.js';

const RELEASES = new WeakMap<DubboProfile, DubboRelease>();

/** The port-side release of a group's profile. */
export function releaseOf(profile: DubboProfile): DubboRelease {
  let release = RELEASES.get(profile);
  if (release === undefined) {
    release = Object.freeze({
      version: profile.version,
      text: dubboRelease(profile.version).text,
      conditionMissingKey: profile.conditionMissingKey,
      reselect: profile.reselect,
      shortestResponseWindowMs: profile.shortestResponseWindowMs,
      rpcExceptionFilter: profile.rpcExceptionFilter,
      retryTimeout: profile.retryTimeout,
      timeoutDetection: profile.timeoutDetection,
      tpsLimit: profile.tpsLimit,
      consistentHash: profile.consistentHash,
    });
    RELEASES.set(profile, release);
  }
  return release;
}
