// What the page shows when the dashboard cannot start or cannot draw a page: a message saying what
// happened and what to do, instead of a blank page. Two ways in: an error thrown while the scripts load
// or outside any component (window `error`/`unhandledrejection`; it replaces the page only while nothing
// is drawn, as a working page stays usable), and an error while rendering a page (the error boundary in
// web/src/app.tsx). Plain DOM here, not Preact: this must work when Preact or a module before it did not.
// web/src/startup.ts puts up the handlers (onUncaught) before any other module of the dashboard runs.

/** The steps the message offers, in the order worth trying. */
export const WHAT_TO_DO = [
  'Reload the page.',
  'If it happens again, open the browser’s developer console, copy the error shown there and send it to whoever runs your agentmeter server.',
];

/** The message's text: what failed and the detail of the error (its message, never a stack). */
export function failureText(error: unknown): { title: string; detail: string } {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error ?? 'unknown error');
  return { title: 'The dashboard could not show this page', detail };
}

/** Writes the message into `root`, in place of whatever it held. */
export function showFailure(root: HTMLElement, error: unknown): void {
  const { title, detail } = failureText(error);
  const section = document.createElement('section');
  section.className = 'notice failure';
  section.setAttribute('role', 'alert');
  section.dataset.testid = 'failure';
  const heading = document.createElement('h1');
  heading.textContent = title;
  const what = document.createElement('p');
  what.className = 'error';
  what.textContent = detail;
  const steps = document.createElement('ul');
  for (const step of WHAT_TO_DO) {
    const item = document.createElement('li');
    item.textContent = step;
    steps.append(item);
  }
  section.append(heading, what, steps);
  root.replaceChildren(section);
}

/** For window `error`/`unhandledrejection`: shows the message when nothing is drawn in #app. */
export function onUncaught(error: unknown): void {
  const root = document.getElementById('app');
  // A page already drawn stays: an error in one event handler should not take the whole page away.
  if (root && root.childElementCount === 0) showFailure(root, error);
}
