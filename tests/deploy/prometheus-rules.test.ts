/**
 * The alert rules (deploy/prometheus/alerts.yml) as Prometheus's own tool reads them: they load, each fires on
 * what should fire it and not before (alerts.test.yml), and compose's Prometheus loads them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@clinic/devstack';
import { parse } from 'yaml';

const dir = join(REPO_ROOT, 'deploy', 'prometheus');
const promtool = (...args: string[]) => execFileSync('promtool', args, { cwd: dir, encoding: 'utf8' });

it('loads every alert rule', () => {
  expect(promtool('check', 'rules', 'alerts.yml')).toMatch(/SUCCESS: \d+ rules found/);
});

it('fires ServiceDown after a minute without a scrape, and each tested alert on its series alone', () => {
  expect(promtool('test', 'rules', 'alerts.test.yml')).toMatch(/SUCCESS/);
});

it("alerts on a service down, 5xx, event lag, disk, certificates and the identity provider, and compose's Prometheus loads them", () => {
  const rules = parse(readFileSync(join(dir, 'alerts.yml'), 'utf8')).groups.flatMap(
    (g: { rules: { alert: string }[] }) => g.rules.map((r) => r.alert),
  );
  expect(rules).toEqual(
    expect.arrayContaining([
      'ServiceDown',
      'HighErrorRate',
      'EventsNotPublished',
      'JetStreamStorageLow',
      'CertificateExpiresSoon',
      'IdentityProviderUnreachable',
    ]),
  );
  expect(parse(readFileSync(join(dir, 'prometheus.yml'), 'utf8')).rule_files).toEqual(['alerts.yml']);
});
