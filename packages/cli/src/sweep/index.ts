export { sweep, sweepCommand, DATABASE_URL_VARIABLE } from "./sweep.ts";
export type { SweepCliOptions } from "./sweep.ts";
