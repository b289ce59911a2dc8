/** What the communication send uses of the email area. */
export { EMAIL_FILES, emailViews } from './emails.ts';
export { EmailRecord } from './schemas.ts';
export { deliverEmail, emailFrom, type OutboundEmail, recordOutboundEmail } from './send.ts';
