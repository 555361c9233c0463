export interface MetricsTarget {
  /** gateway, billing, catalogue, sessions; nats and database for the servers */
  job: string;
  /** The process: billing-1, billing-2... */
  replica: string;
  /** host:port serving /metrics */
  address: string;
}

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

/**
 * npm start's: the processes from a file Prometheus reads again by itself whenever it changes (file_sd), so a
 * restart on other ports needs no reload, and the alert rules of deploy/prometheus.
 */
export function discoveringPrometheusConfig(targetsFile: string, ruleFile: string, scrapeInterval = '15s'): string {
  const config = {
    global: { scrape_interval: scrapeInterval, evaluation_interval: scrapeInterval },
    rule_files: [ruleFile],
    scrape_configs: [{ job_name: 'clinic', metrics_path: '/metrics', file_sd_configs: [{ files: [targetsFile] }] }],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** The targets file of discoveringPrometheusConfig: each process with its job (gateway, billing...) and replica. */
export function prometheusTargets(targets: MetricsTarget[]): string {
  const groups = targets.map((t) => ({ targets: [t.address], labels: { job: t.job, replica: t.replica } }));
  return `${JSON.stringify(groups, null, 2)}\n`;
}
