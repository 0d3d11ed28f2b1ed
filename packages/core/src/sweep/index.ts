export { sweepStore, sweepBatchSize } from "./sweep.ts";
export type { SweepReport, SweepOptions, SweepPlan } from "./sweep.ts";
