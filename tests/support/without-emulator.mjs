// Registered with `node --import`: makes @setpoint/databricks-emulator unresolvable, as in an install of the
// product without the emulator package (it is an optional peer dependency of setpoint).
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === '@setpoint/databricks-emulator' || specifier.startsWith('@setpoint/databricks-emulator/')) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`)}`,
);
