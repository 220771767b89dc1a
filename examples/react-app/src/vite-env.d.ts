/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The service's URL, used when the page's URL has no `?api=`. */
  readonly VITE_FAIRDICE_URL?: string;
}
