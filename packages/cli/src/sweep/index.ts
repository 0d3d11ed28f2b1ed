export { sweep, sweepCommand } from "./sweep.ts";
export type { SweepCliOptions } from "./sweep.ts";
