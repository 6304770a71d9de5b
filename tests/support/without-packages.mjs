// Registered with `node --import`: makes the packages named in SETPOINT_TEST_HIDDEN_PACKAGES (comma-separated)
// unresolvable, as in an install of the product without them (the emulator is an optional peer dependency of
// setpoint; the benchmarks are a package of the repository that the product loads by name).
import { register } from 'node:module';

const hidden = (process.env.SETPOINT_TEST_HIDDEN_PACKAGES ?? '').split(',').filter((name) => name !== '');

register(
  `data:text/javascript,${encodeURIComponent(`
const hidden = ${JSON.stringify(hidden)};
export async function resolve(specifier, context, next) {
  if (hidden.some((name) => specifier === name || specifier.startsWith(name + '/'))) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`)}`,
);
