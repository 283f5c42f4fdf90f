// Catches an error thrown while rendering what it wraps and shows what happened and what to do in its
// place (web/src/failure.ts has the words), so a bad answer or a bug on one page never leaves a blank
// page. The shell wraps each page in one (keyed by path: moving to another page tries again) and
// main.tsx wraps the whole app in another.
import { Component, type ComponentChildren } from 'preact';
import { failureText, WHAT_TO_DO } from './failure.ts';

export class ErrorBoundary extends Component<{ children: ComponentChildren }, { error?: unknown }> {
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidCatch(error: unknown) {
    // The console keeps the stack for whoever is asked to look (the message names the console).
    console.error(error);
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    const { title, detail } = failureText(this.state.error);
    return (
      <section class="notice failure" role="alert" data-testid="failure">
        <h1>{title}</h1>
        <p class="error">{detail}</p>
        <ul>
          {WHAT_TO_DO.map((step) => (
            <li key={step}>{step}</li>
          ))}
        </ul>
      </section>
    );
  }
}
