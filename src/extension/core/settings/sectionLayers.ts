// The layers of each `vigil.*` setting out of one inspect() of the whole `vigil` section, instead of one
// inspect() per setting: VS Code's inspect builds and copies its configuration models on every call (about
// 0.4 ms each, and garbage), which made reading the settings the largest part of activation. Pure, unit-tested.

import type { SettingLayers } from './settingsTrust';

const LAYERS = ['defaultValue', 'globalValue', 'workspaceValue', 'workspaceFolderValue'] as const;

/**
 * `section`: what inspect('vigil') reports, each layer an object of the settings below `vigil.` set in it.
 * Returns the layers of one setting (`model.provider`) as inspect('vigil.model.provider') reports them.
 */
export function layersFromSection(section: SettingLayers | undefined): (key: string) => SettingLayers {
  return (key) => {
    const layers: SettingLayers = {};
    for (const layer of LAYERS) {
      const value = valueAt(section?.[layer], key);
      if (value !== undefined) layers[layer] = value;
    }
    return layers;
  };
}

/** The value at a dotted path, read as VS Code reads a setting out of its configuration tree. */
function valueAt(tree: unknown, key: string): unknown {
  let node = tree;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}
