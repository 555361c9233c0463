/**
 * Compose's OpenTelemetry Collector: every process sends its traces to it, and its configuration is one the
 * collector accepts, checked by a collector built with the same release and components (tools/otel-collector).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { SERVICE_NAMES } from '@clinic/contracts';
import { otelCollectorBinary, REPO_ROOT } from '@clinic/devstack';
import { mountedFiles, services, tlsDir } from './compose-stack';

const configFile = join(REPO_ROOT, 'deploy', 'otel', 'collector.yaml');
const validate = (file: string) => {
  const run = spawnSync(otelCollectorBinary(), ['validate', `--config=${file}`], { encoding: 'utf8' });
  return { status: run.status, said: run.stdout + run.stderr };
};

it('runs the collector release the tests build, with the configuration it is given', () => {
  const goMod = readFileSync(join(REPO_ROOT, 'tools', 'otel-collector', 'go.mod'), 'utf8');
  const release = /opentelemetry-collector-contrib\/exporter\/fileexporter v(\S+)/.exec(goMod)![1];
  expect(services.collector.image).toBe(`otel/opentelemetry-collector-contrib:${release}`);
  const [flag] = services.collector.command as string[];
  expect(mountedFiles('collector')[flag!.replace('--config=', '')]).toBe(configFile);
});

it('has a configuration the collector accepts, and refuses a broken one', () => {
  expect(validate(configFile)).toEqual({ status: 0, said: '' });
  const config = YAML.parse(readFileSync(configFile, 'utf8'));
  config.service.pipelines.traces.processors.push('tail_sampling');
  const broken = join(tlsDir, 'collector.yaml');
  writeFileSync(broken, YAML.stringify(config));
  expect(validate(broken)).toMatchObject({ status: 1, said: expect.stringContaining('tail_sampling') });
});

it('receives OTLP, keeps the memory limiter under the container limit, and writes to its own volume', () => {
  const config = YAML.parse(readFileSync(configFile, 'utf8'));
  expect(config.service.pipelines.traces).toEqual({
    receivers: ['otlp'],
    processors: ['memory_limiter', 'batch'],
    exporters: ['file'],
  });
  expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
  const limitMib = Number.parseInt(services.collector.deploy.resources.limits.memory, 10);
  expect(config.processors.memory_limiter.limit_mib).toBeLessThan(limitMib);
  expect(services.collector.volumes).toContain('otel-data:/var/lib/otelcol');
  expect(config.exporters.file.path.startsWith('/var/lib/otelcol/')).toBe(true);
  // The volume is made the collector's (it runs as uid 10001) before it starts.
  expect(services['collector-storage'].volumes).toEqual(['otel-data:/var/lib/otelcol']);
  expect(services['collector-storage'].entrypoint).toEqual(['chown', '10001:10001', '/var/lib/otelcol']);
  expect(services.collector.depends_on).toEqual({
    'collector-storage': { condition: 'service_completed_successfully' },
  });
});

it('has every process send its traces to the collector unless told otherwise; an empty setting turns tracing off', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's ${VAR-default}: the default when unset only
  const toTheCollector = '${OTEL_EXPORTER_OTLP_ENDPOINT-http://collector:4318}';
  for (const name of [...SERVICE_NAMES, 'gateway'])
    expect(services[name].environment.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(toTheCollector);
});
