#!/bin/bash
# Setpoint cluster init script: installs setpoint-client on the driver and checks that the cluster can
# reach Setpoint with its API key, so `python -m setpoint.databricks.record_run` works in a job task.
#
# Configure it with the cluster's environment variables (spark_env_vars); take the secrets from a
# secret scope so they never appear in the job settings:
#   SETPOINT_URL             https://setpoint.internal
#   SETPOINT_API_KEY_ID      {{secrets/setpoint/api-key-id}}
#   SETPOINT_API_KEY_SECRET  {{secrets/setpoint/api-key-secret}}
#   SETPOINT_PACKAGE         what pip installs, e.g. /Volumes/main/setpoint/dist/setpoint_client-0.1.0-py3-none-any.whl
#   DATABRICKS_HOST, DATABRICKS_TOKEN  optional: record_run otherwise uses the runtime's own context
#
# It never fails the cluster start: every problem is one "setpoint:" line on stderr and exit 0.
set -u

warn() { echo "setpoint: $*" >&2; }

if [ "${DB_IS_DRIVER:-}" != "TRUE" ]; then
  exit 0
fi

pip="${SETPOINT_PIP:-/databricks/python/bin/pip}"
if [ -z "${SETPOINT_PACKAGE:-}" ]; then
  warn "SETPOINT_PACKAGE is not set: set it to the setpoint-client wheel (a /Volumes/… or /Workspace/… path)"
  exit 0
fi
if ! "$pip" install --quiet --disable-pip-version-check "$SETPOINT_PACKAGE"; then
  warn "pip could not install $SETPOINT_PACKAGE; runs on this cluster will not be recorded"
  exit 0
fi

missing=""
for name in SETPOINT_URL SETPOINT_API_KEY_ID SETPOINT_API_KEY_SECRET; do
  [ -n "${!name:-}" ] || missing="$missing $name"
done
if [ -n "$missing" ]; then
  warn "installed, but not configured:$missing not set (add them to the cluster's spark_env_vars)"
  exit 0
fi

# The key travels on stdin, never on the command line.
status="$(printf '{"api_key_id":"%s","api_key_secret":"%s"}' "$SETPOINT_API_KEY_ID" "$SETPOINT_API_KEY_SECRET" |
  curl --silent --output /dev/null --write-out '%{http_code}' --max-time 20 \
    --header 'content-type: application/json' --data @- "${SETPOINT_URL%/}/api/v1/auth/token")"
case "$status" in
  200) echo "setpoint: installed; $SETPOINT_URL accepts this cluster's API key" ;;
  000) warn "installed, but $SETPOINT_URL cannot be reached from this cluster" ;;
  *) warn "installed, but $SETPOINT_URL refused the API key (HTTP $status)" ;;
esac
exit 0
