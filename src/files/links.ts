import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Actor } from '../events/audit.ts';
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
 * Where a link points and who asked for it: the access log records a link when it is used, on
 * behalf of its issuer (`USER:<id>`, `API_CLIENT:<id>`, `SYSTEM:sms` for a vendor fetching an
 * attachment), so the issuer is signed into the link.
 */
export interface LinkIssue {
  origin: string;
  now: Date;
  by: string;
}

/** A link issue for `actor` (a request's caller, or the system at work), at this server's `origin`. */
export function linkIssue(origin: string, now: Date, actor: Pick<Actor, 'type' | 'id' | 'name'>): LinkIssue {
  return { origin, now, by: actor.type === 'SYSTEM' || actor.id === null ? actor.name : `${actor.type}:${actor.id}` };
}

/** A used link's issuer: its kind and id (none for the system), as `by` names it. */
export function issuerOf(by: string): { type: string; id: string | null } {
  const [type = '', id = ''] = by.split(':');
  return { type, id: type === 'SYSTEM' || id === '' ? null : id };
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

  /** The link's URL, valid for LINK_SECONDS from the issue's `now`. */
  sign(target: LinkTarget, issue: LinkIssue): string {
    const expires = Math.floor(issue.now.getTime() / 1000) + LINK_SECONDS;
    const query = new URLSearchParams({
      tenant: target.tenantId,
      instance: target.instanceId,
      by: issue.by,
      expires: String(expires),
      signature: this.signature(target, issue.by, expires),
    });
    return `${issue.origin}${LINK_PATH}/${target.fileId}?${query}`;
  }

  /** 403 LINK_INVALID for a changed link, LINK_EXPIRED for an old one; else the target and its issuer. */
  verify(
    fileId: string,
    query: { tenant: string; instance: string; by: string; expires: number; signature: string },
    now: Date,
  ): LinkTarget & { by: string } {
    const target = { tenantId: query.tenant, instanceId: query.instance, fileId };
    const expected = Buffer.from(this.signature(target, query.by, query.expires));
    const given = Buffer.from(query.signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('LINK_INVALID', {});
    if (query.expires * 1000 <= now.getTime()) throw new ApiError('LINK_EXPIRED', {});
    return { ...target, by: query.by };
  }

  private signature(target: LinkTarget, by: string, expires: number): string {
    return createHmac('sha256', this.key)
      .update(`${target.tenantId}/${target.instanceId}/${target.fileId.toLowerCase()}/${by}/${expires}`)
      .digest('base64url');
  }
}

/** The scheme and host the client reached Cairn on (behind a trusted proxy, the forwarded ones). */
export function requestOrigin(request: { protocol: string; host: string }): string {
  return `${request.protocol}://${request.host}`;
}
