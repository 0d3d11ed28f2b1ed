export { sweepStore, sweepBatchSize } from "./sweep.ts";
export type { SweepReport, SweepOptions, SweepPlan } from "./sweep.ts";
export { inBatches, SWEEP_BATCH_SIZE, yieldToEventLoop } from "./batches.ts";
