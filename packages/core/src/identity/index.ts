export { proveMailbox } from "./mailbox-proof.ts";
