// One disposable discipline for the whole extension host: register children, dispose once.

export interface IDisposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/** Base class for long-lived objects; `dispose()` twice is harmless. */
export class Disposable implements IDisposable {
  private readonly children: IDisposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  protected _register<T extends IDisposable>(child: T): T {
    if (this.disposed) {
      child.dispose();
    } else {
      this.children.push(child);
    }
    return child;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    // Dispose in reverse order of registration, like a stack of resources.
    for (const child of this.children.splice(0).reverse()) {
      try {
        child.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'errors while disposing');
  }
}
