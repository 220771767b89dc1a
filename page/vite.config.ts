// Builds the page served at `/` (page/index.html) into dist/page/: hashed file names under
// /assets/, no inline script or style (the page's CSP forbids both), no source maps served.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/page', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Inlined assets would become data: URLs or inline styles; keep every asset a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
  },
  // The odds worker (page/odds-worker.ts) is a module worker: one more hashed file under /assets/.
  worker: { format: 'es' },
});
