import type { Permission } from '../formation/permissions.ts';

/**
 * What files can belong to, and the permission reading each owner needs, which reading its files
 * by id needs too. Chat, email, fax and call recordings join here as they come.
 */
export const fileOwners = {
  DOCUMENT_SUMMARY: { readPermission: 'DOCUMENT_READ' },
} as const satisfies Record<string, { readPermission: Permission }>;

export type FileOwnerKind = keyof typeof fileOwners;

export function readPermissionOf(kind: string): Permission | undefined {
  return (fileOwners as Record<string, { readPermission: Permission }>)[kind]?.readPermission;
}
