import { readFileSync } from 'node:fs';
import { DEFAULT_OUTSIDE_SYSTEMS, OUTSIDE_SYSTEMS_SCHEMA, type OutsideSystem } from '@clinic/contracts';
import { schemaProblem } from '../domain/schema';

/** The outside systems an installation declares (OUTSIDE_SYSTEMS_FILE, a JSON list), else the one `hospital`. */
export function readOutsideSystems(file: string | undefined): readonly OutsideSystem[] {
  if (!file) return DEFAULT_OUTSIDE_SYSTEMS;
  const systems = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const problem = schemaProblem(OUTSIDE_SYSTEMS_SCHEMA, systems);
  if (problem) throw new Error(`${file}: ${problem}`);
  const names = (systems as OutsideSystem[]).map((s) => s.name);
  if (new Set(names).size !== names.length) throw new Error(`${file}: a system is named twice`);
  return systems as OutsideSystem[];
}
