// What must happen before any other module of the dashboard runs, which is why web/src/main.tsx imports
// this first: the handlers that replace a blank page with a message when loading or drawing fails, and
// the repair of an invalid browser locale (`en-US@posix`) before uPlot reads it as it loads.
import { onUncaught } from './failure.ts';
import { repairNavigatorLocale } from './locale.ts';

window.addEventListener('error', (event) => onUncaught(event.error ?? event.message));
window.addEventListener('unhandledrejection', (event) => onUncaught(event.reason));
repairNavigatorLocale();
