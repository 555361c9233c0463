/**
 * docs/configuration.md's table of variables, rendered from the env schemas
 * each process reads (service-kit env.ts: one schema per process, with each
 * variable's default and description).
 */
import { BILLING_ENV } from '@clinic/billing/dist/env';
import { CATALOGUE_ENV } from '@clinic/catalogue/dist/env';
import { GATEWAY_PROCESS_ENV } from '@clinic/gateway/dist/config';
import {
  PROVISION_ENV,
  serviceKitEnv,
  TOKEN_LIFETIME_ENV,
  type EnvProperties,
  type EnvProperty,
} from '@clinic/service-kit/internal';
import { START_ENV } from '../start-env';

/** Who reads which schema: every variable a process reads is in its schema. */
export const PROCESS_ENVS: [string, EnvProperties][] = [
  ['gateway', GATEWAY_PROCESS_ENV],
  ['billing', { ...serviceKitEnv('<service>'), ...BILLING_ENV }],
  ['catalogue', { ...serviceKitEnv('<service>'), ...CATALOGUE_ENV }],
  ['sessions', serviceKitEnv('<service>')],
  ['provision', PROVISION_ENV],
  ['npm start', START_ENV],
  ['npm run token', TOKEN_LIFETIME_ENV],
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

function defaultOf(property: EnvProperty): string {
  if (property.shownDefault) return property.shownDefault;
  return property.default === undefined ? 'unset' : `\`${property.default}\``;
}

function meaningOf(property: EnvProperty): string {
  const choices =
    'enum' in property && property.enum ? ` One of ${property.enum.map((v) => `\`${v}\``).join(', ')}.` : '';
  return `${property.description ?? ''}${choices}`.trim();
}

/** One row per variable and meaning, naming every process that reads it so. */
export function configurationTable(): string {
  const rows = new Map<string, { name: string; property: EnvProperty; readers: string[] }>();
  for (const [process, schema] of PROCESS_ENVS) {
    for (const [name, property] of Object.entries(schema)) {
      const key = `${name}\n${defaultOf(property)}\n${meaningOf(property)}`;
      const row = rows.get(key) ?? { name, property, readers: [] };
      row.readers.push(process);
      rows.set(key, row);
    }
  }
  const lines = ['| Variable | Default | Read by | What it does |', '|---|---|---|---|'];
  for (const { name, property, readers } of rows.values())
    lines.push(`| \`${name}\` | ${cell(defaultOf(property))} | ${readers.join(', ')} | ${cell(meaningOf(property))} |`);
  return lines.join('\n');
}
