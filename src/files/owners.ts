import type { Permission } from '../formation/permissions.ts';
import type { FileRules } from './rules.ts';

/**
 * What files can belong to, as each area declares on its `Area` (`files: { DOCUMENT_SUMMARY:
 * {...} }`): the permission reading the owner needs, which reading its files by id needs too,
 * and what an upload to it may hold.
 */
export interface FileOwner {
  readPermission: Permission;
  rules: FileRules;
}

export type FileOwners = ReadonlyMap<string, FileOwner>;
