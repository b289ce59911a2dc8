/** What the CLI uses of the sandbox: the same operations as its routes. */
export { injectInbound, sandboxOutbox, settleSandboxMessage } from './operations.ts';
