import type { MetricsTarget } from './stack-options';

/**
 * A Prometheus configuration scraping the given processes: one job per kind
 * (gateway, billing...), each replica labelled. Written as JSON, which is
 * YAML too, so no YAML library is needed.
 */
export function prometheusConfig(targets: MetricsTarget[], scrapeInterval = '15s'): string {
  const jobs = [...new Set(targets.map((t) => t.job))];
  const config = {
    global: { scrape_interval: scrapeInterval, evaluation_interval: scrapeInterval },
    scrape_configs: jobs.map((job) => ({
      job_name: job,
      metrics_path: '/metrics',
      static_configs: targets
        .filter((t) => t.job === job)
        .map((t) => ({ targets: [t.address], labels: { replica: t.replica } })),
    })),
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
