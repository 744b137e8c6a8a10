// Replaces a `vscode.window` function for one test (quick picks, input boxes, messages), restoring it after.

export type Restore = () => void;

export function stub<T extends object, K extends keyof T>(target: T, key: K, replacement: T[K]): Restore {
  const original = target[key];
  (target as Record<K, T[K]>)[key] = replacement;
  return () => {
    (target as Record<K, T[K]>)[key] = original;
  };
}

/** Collects restores so `afterEach` undoes every stub of a test. */
export class Stubs {
  private readonly restores: Restore[] = [];

  add<T extends object, K extends keyof T>(target: T, key: K, replacement: T[K]): void {
    this.restores.push(stub(target, key, replacement));
  }

  restore(): void {
    for (const restore of this.restores.splice(0).reverse()) restore();
  }
}

/** Resolves once `predicate` holds, checking on each event of `subscribe`; rejects after `ms`. */
export function waitFor<T>(subscribe: (listener: (value: T) => void) => { dispose(): void }, predicate: (value: T) => boolean, ms = 5_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`no matching event within ${ms} ms`));
    }, ms);
    const sub = subscribe((value) => {
      if (!predicate(value)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(value);
    });
  });
}

/** Polls `condition` (for state the workbench updates on its own schedule, like a terminal calling `open`). */
export async function until(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
