/** What the communication send uses of the voice area. */
export { callViews } from './calls.ts';
export { callerPhone, type OutboundCall, placeCall, recordOutboundCall } from './place.ts';
export { VoiceCall } from './schemas.ts';
