import type { ExportSource } from '../../http/export.ts';
import { callViews } from './calls.ts';
import { VoiceCall } from './schemas.ts';

/** Voice calls in the bulk export: each as GET .../voice-calls/{id} shows it (the recording's fresh link); `patientIds` keeps to theirs. */
export const callExport: ExportSource = {
  permission: 'VOICE_CALL_EXPORT',
  summary: 'voice calls',
  item: VoiceCall,
  table: 'voice_calls',
  patientsOf: { column: 'patient_id' },
  patientColumn: 'patient_id',
  view: (ctx, rows, origin) => callViews(ctx, rows, origin),
};
