import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';

/** The export's settings: how fresh a record may be before the export serves it. */
export const exportSettings = settingsSection(
  'export',
  Type.Object({
    CAIRN_EXPORT_SETTLE_MS: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 2_000,
      description:
        'Records updated within this many milliseconds are left for the next export walk, so a write still committing is never passed by a cursor.',
    }),
  }),
  (e) => ({ settleMs: e.CAIRN_EXPORT_SETTLE_MS }),
);
