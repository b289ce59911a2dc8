import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';

/** How long the access log keeps its records, and the switch only a measurement may turn. */
export const accessLogSettings = settingsSection(
  'access log',
  Type.Object({
    CAIRN_ACCESS_LOG: Type.Boolean({
      default: true,
      description:
        'Record every answer that shows patient data. Turn it off only to measure its cost (`npm run bench`): HIPAA (45 CFR 164.312(b)) expects it on any server holding real patients, and Cairn warns at start when it is off.',
    }),
    CAIRN_ACCESS_LOG_RETENTION_DAYS: Type.Integer({
      minimum: 1,
      default: 2192,
      description:
        'Days an access record is kept (six years, as 45 CFR 164.316 keeps documentation); older ones are removed hourly, whole seals at a time, and each removal is itself recorded.',
    }),
  }),
  (e) => ({ enabled: e.CAIRN_ACCESS_LOG, retentionDays: e.CAIRN_ACCESS_LOG_RETENTION_DAYS }),
);
