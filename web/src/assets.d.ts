/** Stylesheets are bundled by Vite; importing one has only its side effect. */
declare module '*.css';
