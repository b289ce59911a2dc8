import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';

/** The export's settings: how far back a walk's last cursor stays, so a write still committing is never passed. */
export const exportSettings = settingsSection(
  'export',
  Type.Object({
    CAIRN_EXPORT_SETTLE_MS: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 1_000,
      description:
        "On PostgreSQL: the longest a write may take from taking its instant to reaching the database, plus how far nodes' clocks may differ. A walk's cursor stops that far behind the present, so the next walk gives again the records updated within it rather than skip one still committing; no record is held back for it.",
    }),
  }),
  (e) => ({ settleMs: e.CAIRN_EXPORT_SETTLE_MS }),
);
