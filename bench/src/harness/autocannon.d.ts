// The part of autocannon's programmatic API the harness uses (the package ships no types).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface SequenceStep extends RequestSpec {
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec | null;
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string>,
    ) => void;
  }

  export interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
    requests?: SequenceStep[];
    initialContext?: Record<string, unknown>;
  }

  export interface Instance extends EventEmitter {
    stop(): void;
  }

  export default function autocannon(options: Options, done?: (error: Error | null, result: unknown) => void): Instance;
}
