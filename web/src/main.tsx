// The dashboard's entry. startup.ts must stay the first import: it puts up the handlers that replace a
// blank page with a message and repairs an invalid browser locale before uPlot (through app.tsx) loads.
import './startup.ts';
import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './app.tsx';
import { ErrorBoundary } from './error-boundary.tsx';

render(
  <ErrorBoundary>
    <App />
  </ErrorBoundary>,
  document.getElementById('app')!,
);
