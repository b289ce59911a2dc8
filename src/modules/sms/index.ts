/** What the communication send uses of the SMS area. */
export { SMS_FILES, smsViews } from './messages.ts';
export { SmsRecord } from './schemas.ts';
export { deliverSms, type OutboundSms, recordOutboundSms } from './send.ts';
