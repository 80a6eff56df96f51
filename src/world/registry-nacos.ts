/**
 * `type: nacos`: ephemeral instances, in one of two modes, per provider: the Nacos client its
 * process ships (its group's Dubbo profile `nacosClient`: Dubbo 3.3 bundles nacos-client 2.4.3,
 * 2.7.23 bundles 1.4.2, `dubbo-dependencies-bom/pom.xml`), unless the registry's `connectionBound`
 * says for every provider. A mixed estate runs both server loops.
 *
 * Heartbeat mode (Nacos 1.x clients): a live provider's
 * client beats every `heartbeat` (BeatReactor). The server checks every instance every 5 s
 * (`ClientBeatCheckTask`, here one server-wide timer at a random phase): no beat for more than
 * `unhealthyAfter` marks it unhealthy and pushes that change; no beat for more than `removeAfter`
 * deletes it. A beat from an unhealthy instance makes it healthy again (pushed too); a beat for a
 * deleted one makes the client register again (the server answers 20404). Pushes carry every
 * instance, unhealthy ones included (InstanceController `doSrvIpxt(healthyOnly=false)`), and Dubbo's
 * NacosRegistry filters only on `enabled`: a silent instance leaves the consumer's list when Nacos
 * DELETES it, not when it turns unhealthy (apache/dubbo#6778).
 *
 * Connection mode (Nacos 2.x gRPC): instances live as long as the
 * client's connection. A crashed or stopped process closes its connection and its instances go
 * 3 s later (zonesim's figure for the close reaching the server and the disconnect event being
 * processed). A black-holed or cut-off client just goes quiet: its keepalive (`heartbeat`,
 * RpcClient's 5 s health check) stops; the server's connection ejector runs every 3 s
 * (`ConnectionManager`), probes connections idle for 20 s (`RuntimeConnectionEjector
 * .KEEP_ALIVE_TIME`) with a `ClientDetectionRequest`, and after the 5 s probe timeout unregisters
 * the connection and its instances. A client that is heard again reconnects and redoes its
 * registrations.
 *
 * Deregistration (graceful stop) removes at once in both modes. Follows the Nacos server's
 * `ClientBeatCheckTask`/`ClientBeatProcessor` (1.x) and `NacosRuntimeConnectionEjector` (2.x).
 *
 * The server is Nacos 2.x, which serves both client generations (1.x clients over HTTP, their beats
 * checked by `ClientBeatCheckTaskV2` with the same 15 s / 30 s rules, their pushes sent by UDP through
 * `PushExecutorDelegate`): when the registry is modelled as a server (`servers` or `capacity`), every
 * push of a changed service waits in its `PushDelayTaskExecuteEngine` (500 ms, merged per service,
 * `registry-push-merge.ts`), whatever the subscriber's client.
 */
import type { RegistrySpec, Scenario } from '../model/types.js';
import { DiscoveryRegistry, type RegistryHost, type RegistryOptions } from './registry-discovery.js';
import type { RegistryEntry } from './registry-entry.js';
import { NACOS_DELAY_ENGINE_INTERVAL_MS, nacosServerPushDelayMs } from './registry-push-merge.js';
import { NACOS_BEAT_BYTES, NACOS_KEEPALIVE_BYTES } from './registry-servers.js';

/** Nacos 1.x: the server checks instance beats this often (`ClientBeatCheckTask`, every 5 s). */
export const NACOS_BEAT_CHECK_PERIOD_MS = 5000;
/** Nacos 2.x: the connection ejector's period (`ConnectionManager`, fixed delay 3 s). */
export const NACOS_EJECT_PERIOD_MS = 3000;
/** Nacos 2.x: a connection idle this long is probed (`RuntimeConnectionEjector.KEEP_ALIVE_TIME`). */
export const NACOS_KEEP_ALIVE_TIME_MS = 20_000;
/** Nacos 2.x: how long the ejector waits for the `ClientDetectionRequest` answer. */
export const NACOS_DETECTION_TIMEOUT_MS = 5000;
/** Nacos 2.x: a crashed client's instances go this long after the crash (zonesim's choice, see the module note). */
export const NACOS_CONNECTION_CLOSED_MS = 3000;

/** Nacos 1.x client: the HTTP read timeout of a beat (NamingHttpClientManager `READ_TIME_OUT_MILLIS`). */
export const NACOS1_BEAT_READ_TIMEOUT_MS = 50_000;
/** Nacos 2.x client: how long a health check waits for its answer (DefaultGrpcClientConfig `healthCheckTimeOut`). */
export const NACOS2_HEALTH_CHECK_TIMEOUT_MS = 3000;

/** The Nacos naming server as Dubbo consumers see it. */
export class NacosRegistry extends DiscoveryRegistry {
  /** Connections being probed by the ejector (2.x). */
  readonly #probing = new Set<RegistryEntry>();

  constructor(host: RegistryHost, spec: RegistrySpec, options: RegistryOptions) {
    super(host, spec, options, 'nacos');
    // Server timers are not in step with any client: their phase is drawn once (and shared by both loops).
    const phase = host.streams.stream(`${options.streamPrefix}/phase`).next();
    const clients = nacosClientsOf(spec, options.name, host.scenario);
    if (clients.has('2.x')) this.sim.schedule(phase * NACOS_EJECT_PERIOD_MS, () => this.#eject());
    if (clients.has('1.x')) this.sim.schedule(phase * NACOS_BEAT_CHECK_PERIOD_MS, () => this.#beatCheck());
    // The server is Nacos 2.x (see the module note): every push waits in its PushDelayTaskExecuteEngine,
    // whose ProcessRunnable ticks are another server timer (the same drawn phase). Only when the
    // registry is modelled as a server (SPEC 2.5 `servers` / `capacity`): without them the registry is
    // the idealised one whose pushes leave at once, and every such scenario keeps its summary.
    // `pushDelay` (Nacos's `pushTaskDelay`) sets the delay; 0 pushes at once.
    const delayMs = nacosServerPushDelayMs(spec);
    if (delayMs !== undefined) {
      this.delayPushes({ kind: 'nacosDelay', delayMs, tickMs: NACOS_DELAY_ENGINE_INTERVAL_MS, phaseMs: phase * NACOS_DELAY_ENGINE_INTERVAL_MS });
    }
  }

  protected tickIntervalMs(): number {
    return this.spec.heartbeatMs;
  }

  // 1.x: BeatReactor beats per registered instance; 2.x: one keepalive per gRPC connection (process).
  protected override livenessPerProcess(entry: RegistryEntry): boolean {
    return this.#connectionBound(entry);
  }

  protected livenessBytes(entry: RegistryEntry): { readonly request: number; readonly reply: number } {
    return this.#connectionBound(entry) ? NACOS_KEEPALIVE_BYTES : NACOS_BEAT_BYTES;
  }

  // 1.x: BeatTask's `sendBeat` is a blocking HTTP call (read timeout 50 s, NamingHttpClientManager) and the
  // next beat is scheduled once it returns; 2.x: RpcClient's health check waits for its answer (3 s,
  // DefaultGrpcClientConfig `healthCheckTimeOut`). DIVERGENCE: 1.x's retries on other servers (NamingProxy
  // `reqApi`) and 2.x's three health checks before a reconnect are not modelled.
  protected override livenessCallTimeoutMs(entry: RegistryEntry): number {
    return this.#connectionBound(entry) ? NACOS2_HEALTH_CHECK_TIMEOUT_MS : NACOS1_BEAT_READ_TIMEOUT_MS;
  }

  /** The instance's client is 2.x (connection-bound): the registry's `connectionBound`, else its provider group's profile. */
  #connectionBound(entry: RegistryEntry): boolean {
    return this.spec.connectionBound ?? entry.instance.group.spec.dubbo.nacosClient === '2.x';
  }

  // 2.x: the process is gone but its host answers: the connection reset reaches the server.
  protected override onSilentTick(entry: RegistryEntry): void {
    if (!entry.registered || !this.#connectionBound(entry)) return;
    const state = entry.provider.state;
    if ((state === 'crashed' || state === 'stopped') && this.reachable(entry.provider.zone)) {
      this.remove(entry);
      this.observer.count('registry.connectionClosed');
      this.publish();
    }
  }

  protected override onCrash(entry: RegistryEntry): void {
    if (!this.#connectionBound(entry)) return;
    this.sim.schedule(NACOS_CONNECTION_CLOSED_MS, () => this.onSilentTick(entry));
  }

  // 1.x ClientBeatCheckTask: unhealthy after `unhealthyAfter`, deleted after `removeAfter`.
  #beatCheck(): void {
    if (!this.down) {
      const now = this.sim.now;
      for (const e of [...this.registered]) {
        if (this.#connectionBound(e)) continue;
        const silentMs = now - e.lastHeardMs;
        if (silentMs > this.spec.removeAfterMs) {
          this.remove(e);
          this.observer.count('registry.deleted');
        } else if (e.healthy && silentMs > this.spec.unhealthyAfterMs) {
          this.markUnhealthy(e);
          this.observer.count('registry.unhealthy');
        }
      }
      this.publish();
    }
    this.sim.schedule(NACOS_BEAT_CHECK_PERIOD_MS, () => this.#beatCheck());
  }

  // 2.x NacosRuntimeConnectionEjector.ejectOutdatedConnection: probe idle connections, drop the silent.
  #eject(): void {
    let probed = false;
    if (!this.down) {
      const now = this.sim.now;
      const outdated: RegistryEntry[] = [];
      for (const e of this.registered) {
        if (!this.#probing.has(e) && now - e.lastHeardMs >= NACOS_KEEP_ALIVE_TIME_MS && this.#connectionBound(e)) outdated.push(e);
      }
      for (const e of outdated) {
        if (e.provider.state === 'up' && this.reachable(e.provider.zone)) {
          e.lastHeardMs = now; // the client answers the detection request
          continue;
        }
        probed = true;
        this.#probing.add(e);
      }
      if (probed) {
        // The ejector waits for the answers, then unregisters every connection that gave none.
        this.sim.schedule(NACOS_DETECTION_TIMEOUT_MS, () => {
          for (const e of [...this.#probing]) {
            this.#probing.delete(e);
            if (!e.registered) continue;
            this.remove(e);
            this.observer.count('registry.ejected');
          }
          this.publish();
        });
      }
    }
    // Fixed delay: the next run starts after this one, including its wait for probe answers.
    this.sim.schedule(NACOS_EJECT_PERIOD_MS + (probed ? NACOS_DETECTION_TIMEOUT_MS : 0), () => this.#eject());
  }
}

/**
 * The Nacos clients of the providers registering with registry `name`: the registry's
 * `connectionBound` for all when set, else each provider group's profile; both without a scenario.
 */
function nacosClientsOf(spec: RegistrySpec, name: string, scenario: Pick<Scenario, 'providers' | 'registries'> | undefined): Set<'1.x' | '2.x'> {
  if (spec.connectionBound !== undefined) return new Set([spec.connectionBound ? '2.x' : '1.x']);
  if (scenario === undefined) return new Set(['1.x', '2.x']);
  const multi = Object.keys(scenario.registries).length > 0;
  const out = new Set<'1.x' | '2.x'>();
  for (const g of scenario.providers) {
    if (multi && g.registries !== undefined && !g.registries.includes(name)) continue;
    out.add(g.dubbo.nacosClient);
  }
  return out;
}
