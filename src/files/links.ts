import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../wire/errors.ts';

/** 000: file links expire after 5 minutes. */
export const LINK_SECONDS = 5 * 60;

/** Where Cairn serves its own signed links (the filesystem driver); no token is needed there. */
export const LINK_PATH = '/files/links';

export interface LinkTarget {
  tenantId: string;
  instanceId: string;
  fileId: string;
}

/**
 * HMAC-signed, expiring links to a file, for a browser or a mail client that holds no token. The
 * signature covers the tenant, the instance, the file and the expiry, so no part can be changed;
 * its key is derived from the server's signing secret, so every node checks every node's links.
 */
export class FileLinks {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('cairn file links').digest();
  }

  /** The link's path and query, valid for LINK_SECONDS from `now`. */
  sign(target: LinkTarget, now: Date): string {
    const expires = Math.floor(now.getTime() / 1000) + LINK_SECONDS;
    const query = new URLSearchParams({
      tenant: target.tenantId,
      instance: target.instanceId,
      expires: String(expires),
      signature: this.signature(target, expires),
    });
    return `${LINK_PATH}/${target.fileId}?${query}`;
  }

  /** 403 LINK_INVALID for a changed link, LINK_EXPIRED for an old one; else the target. */
  verify(fileId: string, query: { tenant: string; instance: string; expires: number; signature: string }, now: Date): LinkTarget {
    const target = { tenantId: query.tenant, instanceId: query.instance, fileId };
    const expected = Buffer.from(this.signature(target, query.expires));
    const given = Buffer.from(query.signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('LINK_INVALID', {});
    if (query.expires * 1000 <= now.getTime()) throw new ApiError('LINK_EXPIRED', {});
    return target;
  }

  private signature(target: LinkTarget, expires: number): string {
    return createHmac('sha256', this.key)
      .update(`${target.tenantId}/${target.instanceId}/${target.fileId.toLowerCase()}/${expires}`)
      .digest('base64url');
  }
}

/** The scheme and host the client reached Cairn on (behind a trusted proxy, the forwarded ones). */
export function requestOrigin(request: { protocol: string; host: string }): string {
  return `${request.protocol}://${request.host}`;
}
