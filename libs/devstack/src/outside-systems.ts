import type { OutsideSystem } from '@clinic/contracts';
import { readOutsideSystems } from '@clinic/service-kit/internal';

/** The outside systems of this installation: OUTSIDE_SYSTEMS_FILE's, else the one `hospital`. */
export function installationSystems(env: NodeJS.ProcessEnv = process.env): readonly OutsideSystem[] {
  return readOutsideSystems(env.OUTSIDE_SYSTEMS_FILE || undefined);
}
