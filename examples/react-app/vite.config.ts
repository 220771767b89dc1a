// The example's build and dev server. `npm run dev` proxies /trpc to a fairdice service on
// 127.0.0.1:3000, so the app can call it with the relative URL '/' (no CORS involved).
import { defineConfig } from 'vite';

export default defineConfig({
  // One copy of tRPC and React in the bundle, whichever package asks for them.
  resolve: { dedupe: ['@trpc/client', '@trpc/server', 'react', 'react-dom'] },
  server: { proxy: { '/trpc': 'http://127.0.0.1:3000' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      onwarn(warning, warn) {
        // React Query marks its hooks "use client" for React Server Components; a SPA has none.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
