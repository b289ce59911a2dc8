import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Credentials of outside services a tenant sets (an SMTP password, a vendor's auth token) are kept
 * sealed at rest: AES-256-GCM under a key derived (HKDF-SHA256) from the server's signing secret,
 * so a copy of the database alone does not give them away. Unlike a client secret they cannot be
 * hashed: Cairn must present them to the vendor. A server whose signing secret changes can no
 * longer open them; their settings must be set again.
 */
export class Sealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'cairn', 'provider credentials', 32));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url. */
  seal(values: Record<string, unknown>): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The values sealed, or null when they were sealed under another secret (or altered). */
  open(text: string): Record<string, unknown> | null {
    const [version, iv, tag, sealed] = text.split('.');
    if (version !== 'v1' || !iv || !tag || sealed === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
  }
}
