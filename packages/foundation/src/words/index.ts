export { countOf } from './count-of.js';
