/**
 * The application behind a `Weft`, for the other entry points of the package
 * (`weft-runtime/server` mounts its services) without making it part of `Weft`'s public type.
 */
import { WeftError } from '../core/errors.js';
import type { WeftApp } from '../app/weft-app.js';

const apps = new WeakMap<object, WeftApp>();

export function rememberApp(weft: object, app: WeftApp): void {
  apps.set(weft, app);
}

/** The app of a `Weft` made by `createWeft`; anything else is a usage error. */
export function appOf(weft: object): WeftApp {
  const app = apps.get(weft);
  if (!app) throw new WeftError('USAGE', 'weft: expected a Weft made by createWeft() from weft-runtime.');
  return app;
}
