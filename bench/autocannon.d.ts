// The slice of autocannon's API the load runner uses (the package ships no types).
declare module "autocannon" {
  type RequestParams = { method?: string; path?: string; headers?: Record<string, string>; body?: string };

  export type Options = RequestParams & {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    /** ms between samples (default 1000); a run also ends only at a sample. */
    sampleInt?: number;
    requests?: (RequestParams & { setupRequest?: (request: RequestParams) => RequestParams })[];
  };

  export type Histogram = { average: number; mean: number; stddev: number; min: number; max: number; p50: number; p90: number; p99: number; total: number };

  export type Result = {
    duration: number;
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    statusCodeStats: Record<string, { count: number }>;
  };

  export default function autocannon(options: Options): Promise<Result>;
}
