export { sweepStore, sweepBatchSize, DEFAULT_SWEEP_BATCH_SIZE } from "./sweep.ts";
export type { SweepReport, SweepOptions, SweepPlan } from "./sweep.ts";
