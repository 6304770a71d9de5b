/**
 * Set (to 1) by a launcher that starts a Setpoint process with an IPC channel (`setpoint demo`'s child):
 * the process stops when the channel closes, its launcher being gone (`stopOnSignals`). Its own module, so
 * the launcher reads it without loading the server.
 */
export const stopWithParentVariable = 'SETPOINT_STOP_WITH_PARENT';
