// Types for parse-prometheus-text-format 1.1.1, which ships none: the shapes its parser returns.
declare module 'parse-prometheus-text-format' {
  /** One sample (or, for summaries and histograms, one merged series) of a metric family. */
  export interface PrometheusSample {
    value?: string;
    labels?: Record<string, string>;
    timestamp_ms?: string;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  /** A metric family: `# HELP`/`# TYPE` and its samples. */
  export interface PrometheusFamily {
    name: string;
    help: string;
    type: string;
    metrics: PrometheusSample[];
  }
  /** Parses Prometheus text exposition; throws `InvalidLineError` on a malformed line. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
