/**
 * The consumer's ConsumerContextFilter for a call made while a provider executes another (a call
 * graph's lower tier): the outgoing invocation gets the server attachment that ContextFilter left
 * (no PenetrateAttachmentSelector is installed), then the client attachments; the countdown is
 * passed on unless this reference turns `enable-timeout-countdown` off, and a call with no time
 * left ends at once with TIMEOUT_TERMINATE. It runs once per call, before the cluster invoker
 * (it is a ClusterFilter). Follows dubbo-cluster `filter/support/ConsumerContextFilter.java`
 * (Dubbo 3.3, `invoke` lines 64-120).
 */
import { RpcCode, TAG_KEY } from '../constants.js';
import type { RpcError } from '../rpc.js';
import type { TimeoutCountDown } from '../timeout-count-down.js';
import type { URL } from '../url.js';
import { ENABLE_TIMEOUT_COUNTDOWN_KEY, serverAttachments, serverCountDown } from './context-filter.js';

/** What the executing provider hands to a call it makes (Dubbo keeps it in RpcContext's server attachment). */
export interface ServerSide {
  /** The incoming call's attachments as received, before ContextFilter. */
  readonly attachments: ReadonlyMap<string, string>;
  /** When the provider thread started the incoming call (when ContextFilter ran). */
  readonly startedMs: number;
  /**
   * zonesim model of the tag-carrying filter that full-link gray and lane set-ups install (SPEC 2.7
   * `propagation.tag`): the incoming attachment whose value becomes the outgoing `dubbo.tag`.
   */
  readonly tagFrom?: string;
}

/** The outgoing call's attachments and countdown, or the TIMEOUT_TERMINATE it ends with. */
export type ConsumerContext =
  | { kind: 'proceed'; attachments: Map<string, string>; countdown: TimeoutCountDown | null }
  | { kind: 'terminate'; error: RpcError };

/** Dubbo's message when no time is left (ConsumerContextFilter and DubboInvoker word it alike). */
export function noTimeLeft(serviceName: string, methodName: string): RpcError {
  return {
    code: RpcCode.TIMEOUT_TERMINATE,
    message: `No time left for making the following call: ${serviceName}.${methodName}, terminate directly.`,
    cause: 'timeout:terminate',
  };
}

/**
 * ConsumerContextFilter.invoke for one outgoing call of `serviceName.methodName` through the
 * reference whose consumer URL is `consumerUrl` (the cluster invoker's URL), at `nowMs`.
 * `client` are the call's own (client) attachments: they override the server attachment.
 */
export function consumerContext(
  server: ServerSide,
  client: ReadonlyMap<string, string>,
  consumerUrl: URL,
  serviceName: string,
  methodName: string,
  nowMs: number,
): ConsumerContext {
  const attachments = serverAttachments(server.attachments);
  if (server.tagFrom !== undefined) {
    const tag = server.attachments.get(server.tagFrom);
    if (tag !== undefined) attachments.set(TAG_KEY, tag);
  }
  for (const [k, v] of client) attachments.set(k, v);
  let countdown = serverCountDown(server.attachments, server.startedMs);
  // "support to turn off the function on a node": the reference's method-level switch, default on.
  if (countdown !== null && !consumerUrl.getMethodBoolean(methodName, ENABLE_TIMEOUT_COUNTDOWN_KEY, true)) countdown = null;
  if (countdown !== null && countdown.isExpired(nowMs)) return { kind: 'terminate', error: noTimeLeft(serviceName, methodName) };
  return { kind: 'proceed', attachments, countdown };
}
