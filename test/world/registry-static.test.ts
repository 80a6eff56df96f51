/**
 * The `static` registry (registry.ts): every subscriber gets the true provider list of its service at
 * once, on subscribing and on every start or graceful stop; a crash leaves the list as it was (no health
 * checks), and registry faults do not apply. Subscribers of one change share one list object.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderExport } from '../../src/world/provider.js';
import { StaticRegistry } from '../../src/world/registry.js';
import { makeWorld, providers, scenario, SERVICE } from './registry-fixtures.js';

const ORDERS = 'com.example.OrderService';

/** A static world whose one provider group exports UserService and OrderService (two instances). */
function staticWorld() {
  const s = scenario({ registry: { type: 'static' }, providers: [{ services: [SERVICE, ORDERS] }] });
  s.services[ORDERS] = s.services[SERVICE]!;
  const { world } = makeWorld(s);
  expect(world.registry).toBeInstanceOf(StaticRegistry);
  return world;
}

/** Subscribes a listener that records every list it gets. */
function listen(world: ReturnType<typeof staticWorld>, service: string, id = 'probe') {
  const lists: (readonly ProviderExport[])[] = [];
  world.registry.subscribe({ id, zone: 'zoneA' }, service, (l) => lists.push(l));
  return { lists, addresses: () => lists.map((l) => l.map((e) => e.address)) };
}

describe('the static registry', () => {
  it('gives a subscriber the current list at once, and an empty one for a service nobody exports', () => {
    const world = staticWorld();
    const [a, b] = providers(world);
    expect(listen(world, SERVICE).addresses()).toEqual([[a!.address, b!.address]]);
    expect(listen(world, 'com.example.Nobody').addresses()).toEqual([[]]);
  });

  it("pushes a started provider's list to the subscribers of each service it exports, and to no other", () => {
    const world = staticWorld();
    const users = listen(world, SERVICE);
    const orders = listen(world, ORDERS);
    const other = listen(world, 'com.example.Nobody');
    const [a, b] = providers(world);
    const c = world.startProvider(world.providerGroups[0]!);
    expect(users.addresses()).toEqual([
      [a!.address, b!.address],
      [a!.address, b!.address, c.address],
    ]);
    expect(orders.addresses()).toEqual(users.addresses());
    expect(other.addresses()).toEqual([[]]);
    // Each list holds the export of its own service.
    expect(users.lists[1]!.map((e) => e.service)).toEqual([SERVICE, SERVICE, SERVICE]);
    expect(orders.lists[1]!.map((e) => e.service)).toEqual([ORDERS, ORDERS, ORDERS]);
  });

  it('pushes the list without a provider that stops gracefully, and is never told it is gone', () => {
    const world = staticWorld();
    const users = listen(world, SERVICE);
    const [a, b] = providers(world);
    world.registry.providerStopped(a!, true);
    expect(users.addresses()).toEqual([[a!.address, b!.address], [b!.address]]);
    expect(world.registry.isKnownGone(a!.exports[0]!)).toBe(false);
  });

  it('keeps a crashed provider listed and pushes nothing', () => {
    const world = staticWorld();
    const users = listen(world, SERVICE);
    const [a, b] = providers(world);
    world.registry.providerStopped(a!, false);
    expect(users.addresses()).toEqual([[a!.address, b!.address]]);
    expect(listen(world, SERVICE, 'late').addresses()).toEqual([[a!.address, b!.address]]);
    expect(world.registry.isKnownGone(a!.exports[0]!)).toBe(false);
  });

  it('ignores registry faults: no push, the same list', () => {
    const world = staticWorld();
    const users = listen(world, SERVICE);
    world.registry.setZoneCut('zoneA', true);
    world.registry.setDown(true);
    world.registry.setPushSwitch(false);
    world.registry.setRoomDown('zoneA', true);
    const [a, b] = providers(world);
    expect(users.addresses()).toEqual([[a!.address, b!.address]]);
    expect(listen(world, SERVICE, 'late').addresses()).toEqual([[a!.address, b!.address]]);
  });

  it('hands every subscriber of one change the same list object, and a later subscriber that one too', () => {
    const world = staticWorld();
    const one = listen(world, SERVICE, 'one');
    const two = listen(world, SERVICE, 'two');
    expect(two.lists[0]).toBe(one.lists[0]);
    world.startProvider(world.providerGroups[0]!);
    expect(one.lists).toHaveLength(2);
    expect(two.lists[1]).toBe(one.lists[1]);
    expect(two.lists[1]).not.toBe(one.lists[0]);
    expect(listen(world, SERVICE, 'three').lists[0]).toBe(one.lists[1]);
  });

  it('takes a graceful stop of a provider of a service nobody subscribed to without a push', () => {
    const s = scenario({ registry: { type: 'static' }, consumers: [] });
    const { world } = makeWorld(s);
    const [a, b] = providers(world);
    world.registry.providerStopped(a!, true);
    // The list read afterwards is the one without the stopped provider.
    expect(listen(world, SERVICE).addresses()).toEqual([[b!.address]]);
  });
});
