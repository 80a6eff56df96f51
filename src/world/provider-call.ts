/**
 * What travels between a consumer's attempt and a provider process: the call as the provider sees it,
 * the reply that comes back, and what a downstream call inherits from the execution that makes it.
 * Plain types, apart from the classes that implement them (the stack's DubboInvoker sends calls,
 * provider.ts answers them), so that the world's files can share them without importing each other.
 */
import type { RequestHandle } from '../metrics/observer.js';
import type { Link } from './network.js';

/** What comes back to the consumer for one attempt (the protocol layer turns it into a Result). */
export type Reply =
  /**
   * `thrown`: the failed downstream call whose exception the service rethrew, as the caller's stack
   * gave it (opaque here; the stack that reads the reply makes Dubbo's exception of it).
   */
  | { kind: 'ok'; biz: boolean; thrown?: unknown }
  | { kind: 'refused' }
  | { kind: 'exhausted'; detail: string }
  /**
   * A provider filter refused the call (ExecuteLimitFilter, TpsLimitFilter) with `detail`. ExecuteLimitFilter
   * always throws (a SERVICE_ERROR reply); TpsLimitFilter returns its refusal as a result, or throws it
   * when `thrown` (2.7).
   */
  | { kind: 'limited'; filter: 'executes' | 'tps'; detail: string; thrown?: boolean }
  /**
   * Sentinel's provider filter blocked the call (`cause`: `provider:<slot>`): its fallback returned a result
   * carrying `detail` (or `value`, answered), or threw it (`thrown`: a SERVICE_ERROR reply).
   */
  | { kind: 'blocked'; cause: string; detail: string; thrown?: boolean; value?: unknown; answered?: boolean };

/** What a provider needs to answer one attempt. */
export interface IncomingCall {
  /** The service called (its export on the provider process). */
  readonly service: string;
  readonly method: string;
  readonly consumerZone: string;
  readonly request: RequestHandle;
  /**
   * The attachments the call arrived with. Downstream calls made while executing it get them minus
   * the keys Dubbo's ContextFilter unloads (`dubbo.tag`, `timeout`, ...; SPEC 2.7), and a time
   * budget from `_TO` when the caller sent one (timeout countdown).
   */
  readonly attachments: ReadonlyMap<string, string>;
  /**
   * The consumer's application (the `remote.application` attachment Dubbo sends with every call), which
   * Sentinel's provider filter takes as the origin; absent when unknown.
   */
  readonly remoteApplication?: string;
  /** The invocation's arguments (Sentinel's hot-parameter rules read them); absent: none. */
  readonly arguments?: readonly unknown[];
  /** Delivers the provider's answer to the consumer (called when the response message arrives). */
  deliver(reply: Reply): void;
  /** The response was lost or came too late: the execution was orphaned. */
  readonly settled: boolean;
  /**
   * PERF: the link from the provider's zone back to `consumerZone`, when the sender knows it (the
   * response's draw is then taken on it without the network's lookups).
   */
  readonly replyLink?: Link;
}

/** What a downstream call inherits from the execution that makes it (Dubbo's RpcContext server side). */
export interface ServerContext {
  /** The incoming call's attachments, as received. */
  readonly attachments: ReadonlyMap<string, string>;
  /** When the thread started the incoming call: where Dubbo's ContextFilter starts a countdown. */
  readonly startedMs: number;
  /** SPEC 2.7 `propagation.tag`: the incoming attachment copied into the outgoing `dubbo.tag`. */
  readonly tagFrom?: string;
  /** The incoming call being executed (what a trace hangs the downstream calls under). */
  readonly call?: IncomingCall;
}
