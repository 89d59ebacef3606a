// Builds the consumer web app into web/dist (docs/web.md): hashed files under /assets, no inline script or style, so
// the server's Content-Security-Policy can stay script-src 'self'.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  publicDir: 'public',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every asset a file of its own: a data: URI would be an exception to the CSP.
    assetsInlineLimit: 0,
    // Every browser the app supports has modulepreload.
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
