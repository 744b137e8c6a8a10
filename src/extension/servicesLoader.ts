// Loads the services (store, supervisor, registry, wakeups, ACP client) on first use, from their
// own bundle: the domain core and its schemas stay off the activation path.

import * as path from 'node:path';
import type * as Services from './services';

let loaded: typeof Services | undefined;

export function loadServices(): typeof Services {
  // dist/services.js beside the packaged dist/extension.js; out/src/extension/services.js beside this file
  // when run from the compiled sources. A computed path, so the bundler leaves the require to run time.
  const candidates = [path.join(__dirname, 'services.js')];
  for (const candidate of candidates) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded ??= require(candidate) as typeof Services;
      return loaded;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((error as Error).message).includes(candidate)) throw error;
    }
  }
  throw new Error(`Vigil's services bundle is missing (looked for ${candidates.join(', ')}); reinstall the extension.`);
}
