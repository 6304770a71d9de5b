#!/usr/bin/env bash
# Regenerates tests/fixtures/eventlog/spark4/: real Spark 4 event logs written with every event-log
# codec (none, lz4, lzf, snappy, zstd) and once as a rolling log, plus the answers of Spark's own
# History Server over them. Needs python3 and Java 17; downloads pyspark (~300 MB) into a venv.
#   scripts/eventlog/generate-spark-fixtures.sh            # venv in /tmp/setpoint-spark-venv
#   SETPOINT_SPARK_VENV=/path/to/venv scripts/eventlog/generate-spark-fixtures.sh
set -euo pipefail

repo_root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${SETPOINT_SPARK_VENV:-/tmp/setpoint-spark-venv}"
out="$repo_root/tests/fixtures/eventlog/spark4"
work="$(mktemp -d)"
history_port="${SETPOINT_HISTORY_PORT:-18089}"
history_pid=""
cleanup() {
  if [ -n "$history_pid" ]; then kill "$history_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c 'import pyspark, sys; sys.exit(0 if pyspark.__version__.startswith("4.") else 1)' 2>/dev/null; then
  "$venv/bin/pip" install --quiet 'pyspark>=4,<5'
fi
spark_home="$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
spark_version="$("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)')"
echo "pyspark $spark_version at $spark_home"

logs="$work/logs"
mkdir -p "$logs"
export PYSPARK_PYTHON="$venv/bin/python"
for codec in none lz4 lzf snappy zstd; do
  echo "running workloads with event-log codec $codec"
  "$venv/bin/python" "$repo_root/scripts/eventlog/spark-workloads.py" --codec "$codec" --label "$codec" --log-dir "$logs"
done
echo "running workloads with a rolling zstd event log"
"$venv/bin/python" "$repo_root/scripts/eventlog/spark-workloads.py" --codec zstd --label rolling --log-dir "$logs" \
  --rolling --many-tasks 6000

echo "starting Spark's History Server on port $history_port"
SPARK_HOME="$spark_home" SPARK_HISTORY_OPTS="-Dspark.history.fs.logDirectory=file://$logs -Dspark.history.ui.port=$history_port -Dspark.history.fs.update.interval=1s" \
  "$spark_home/bin/spark-class" org.apache.spark.deploy.history.HistoryServer >"$work/history.log" 2>&1 &
history_pid=$!
api="http://localhost:$history_port/api/v1"
expected_apps="$(find "$logs" -maxdepth 1 -mindepth 1 | wc -l)"
for _ in $(seq 1 120); do
  listed="$(curl -fsS "$api/applications" 2>/dev/null | "$venv/bin/python" -c 'import json,sys; print(len(json.load(sys.stdin)))' 2>/dev/null || echo 0)"
  if [ "$listed" = "$expected_apps" ]; then break; fi
  sleep 1
done
if [ "$listed" != "$expected_apps" ]; then
  echo "History Server listed $listed of $expected_apps applications; see its log:" >&2
  tail -50 "$work/history.log" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out/logs" "$out/history-server"
cp -R "$logs/." "$out/logs/"
curl -fsS "$api/applications" >"$out/history-server/applications.json"
for app in $("$venv/bin/python" -c 'import json,sys; print(" ".join(a["id"] for a in json.load(open(sys.argv[1]))))' "$out/history-server/applications.json"); do
  mkdir -p "$out/history-server/$app"
  for endpoint in jobs stages allexecutors environment; do
    curl -fsS "$api/applications/$app/$endpoint" >"$out/history-server/$app/$endpoint.json"
  done
  # Keep the environment answer small: the classpath and JVM/Hadoop properties are machine noise.
  "$venv/bin/python" - "$out/history-server/$app/environment.json" <<'PY'
import json, sys
path = sys.argv[1]
environment = json.load(open(path))
json.dump({key: environment[key] for key in ("runtime", "sparkProperties", "resourceProfiles")}, open(path, "w"), indent=2)
PY
done
"$venv/bin/python" - "$out" "$spark_version" <<'PY'
import json, os, sys
out, version = sys.argv[1], sys.argv[2]
apps = json.load(open(os.path.join(out, "history-server", "applications.json")))
manifest = []
for entry in sorted(os.listdir(os.path.join(out, "logs"))):
    app_id = entry.removeprefix("eventlog_v2_").split(".")[0]
    name = next(a["name"] for a in apps if a["id"] == app_id)
    manifest.append({"path": f"logs/{entry}", "appId": app_id, "label": name.removeprefix("setpoint-fixture-")})
json.dump({"sparkVersion": version, "logs": manifest}, open(os.path.join(out, "manifest.json"), "w"), indent=2)
PY
echo "wrote $(du -sh "$out" | cut -f1) to $out"
