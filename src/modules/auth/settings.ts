import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';

/** 000's token limit, and the limit on wrong secrets: the auth area's section of the configuration. */
export const tokenLimitSettings = settingsSection(
  'auth',
  Type.Object({
    CAIRN_TOKEN_LIMIT: Type.Integer({ minimum: 1, default: 100, description: 'Token requests allowed per window.' }),
    CAIRN_TOKEN_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 300, description: 'Token limit window.' }),
    CAIRN_TOKEN_BLOCK_SECONDS: Type.Integer({ minimum: 1, default: 300, description: 'Block after the limit.' }),
    CAIRN_TOKEN_FAILURE_LIMIT: Type.Integer({
      minimum: 1,
      default: 10,
      description: 'Wrong secrets allowed per caller and source address per window; more block that address for that caller.',
    }),
  }),
  (e) => ({
    max: e.CAIRN_TOKEN_LIMIT,
    failures: e.CAIRN_TOKEN_FAILURE_LIMIT,
    windowSeconds: e.CAIRN_TOKEN_WINDOW_SECONDS,
    blockSeconds: e.CAIRN_TOKEN_BLOCK_SECONDS,
  }),
);

export type TokenLimit = ReturnType<typeof tokenLimitSettings.read>;
