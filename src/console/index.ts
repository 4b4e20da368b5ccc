// Public API of the operator's console: the handler mounted on the bridge's listener, and what it reads the bridge's
// state through (docs/console.md).
export { startConsole, type SignInCounter } from './mount.js';
export { AlertLog, alertKindOf, type AlertKind, type ConsoleAlert } from './alerts.js';
export { ProgressRegistry, type FileProgress } from './progress.js';
export { ActionsInFlight, type ConsoleRuntime, type ConsoleSource, type JobView } from './source.js';
export { recordedCli } from './actions.js';
export { same } from './auth.js';
export { describeAttempt, SignInThrottle } from './throttle.js';
