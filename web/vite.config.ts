// The dashboard's build: Preact through esbuild's automatic JSX runtime (no plugin needed), into
// web/dist, which the server serves. No inline script or style ends up in index.html (the
// Content-Security-Policy forbids them), so the module-preload polyfill Vite would inline is off.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
