/** What other parts reach of the access log's area: its chain's check, for `cairn access-log verify`. */
export { sealTenant, verifyChain } from './chain.ts';
