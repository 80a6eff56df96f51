import { describe, expect, it } from 'vitest';
import { RpcInvocation } from '../../src/dubbo/rpc.js';
import { NO_ATTACHMENTS } from '../../src/dubbo/no-attachments.js';

describe('RpcInvocation attachments', () => {
  it('writes to a map of its own when it was given the shared empty map, which stays empty', () => {
    const a = new RpcInvocation({ methodName: 'm', attachments: NO_ATTACHMENTS });
    const b = new RpcInvocation({ methodName: 'm', attachments: NO_ATTACHMENTS });
    a.setAttachment('_TO', '900');
    expect(a.getAttachment('_TO')).toBe('900');
    expect(a.attachments).not.toBe(NO_ATTACHMENTS);
    expect(b.getAttachment('_TO')).toBeUndefined();
    expect(NO_ATTACHMENTS.size).toBe(0);
  });

  it('writes to the map it was given when that map is the caller\'s own', () => {
    const own = new Map([['k', 'v']]);
    const inv = new RpcInvocation({ methodName: 'm', attachments: own });
    inv.setAttachment('_TO', '900');
    expect(inv.attachments).toBe(own);
    expect(own.get('_TO')).toBe('900');
  });

  it('refuses direct writes to the shared empty map', () => {
    const inv = new RpcInvocation({ methodName: 'm', attachments: NO_ATTACHMENTS });
    expect(() => inv.attachments.set('k', 'v')).toThrow(/read-only/);
    expect(() => inv.attachments.delete('k')).toThrow(/read-only/);
    expect(() => inv.attachments.clear()).toThrow(/read-only/);
    expect(NO_ATTACHMENTS.size).toBe(0);
  });
});
