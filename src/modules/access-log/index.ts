/** What other parts reach of the access log's area: its chain's check (`cairn access-log verify`), its settings (the app's switch). */
export { sealTenant, verifyChain } from './chain.ts';
export { accessLogSettings } from './settings.ts';
