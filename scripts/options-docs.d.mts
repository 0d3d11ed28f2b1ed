/** The command that rewrites docs/options.md's tables. */
export const FIX_COMMAND: string;
/** `text` (docs/options.md) with every marked table regenerated from the option schemas. */
export function generateOptionsDoc(text: string): string;
/** The committed docs/options.md and what the schemas give. */
export function optionsDoc(): { committed: string; generated: string };
