import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/**
 * A context manager that keeps no active context: `with` runs its function
 * and nothing is tracked across awaits. For a process that passes its trace
 * context along explicitly (the gateway): on Node 20 the SDK's default,
 * AsyncLocalStorage, turns on async hooks for every promise of the process
 * from its first use, and the batch span processor uses it at its first
 * export (docs/PERFORMANCE.md, Metrics and tracing).
 */
export class NoActiveContext implements ContextManager {
  active(): Context {
    return ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    _context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return fn.call(thisArg, ...args);
  }

  bind<T>(_context: Context, target: T): T {
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    return this;
  }
}
