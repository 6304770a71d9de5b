export * from './app-error.js';
export * from './error-kinds.js';
