/**
 * The attachments of a request that carries none: one empty map shared by every such request, so a
 * request does not allocate a map of its own only to read nothing from it. It refuses writes; an
 * invocation holding it writes to a copy (`RpcInvocation.setAttachment`). It owns nothing else.
 */

class NoAttachments extends Map<string, string> {
  override set(): this {
    throw new Error('the shared empty attachments map is read-only: write through RpcInvocation.setAttachment, which copies it');
  }
  override delete(): boolean {
    throw new Error('the shared empty attachments map is read-only');
  }
  override clear(): void {
    throw new Error('the shared empty attachments map is read-only');
  }
}

/** The shared, read-only empty attachments map. */
export const NO_ATTACHMENTS: Map<string, string> = new NoAttachments();
