#!/usr/bin/env bash
# httpbin-interop.sh - HTTP1Transport against a server the team did not write: httpbin (PyPI)
# under gunicorn, on 127.0.0.1 only.
#
# What it does:
#   1. makes a venv in .build/httpbin-venv (once; kept while its stamp matches the pins below)
#      with httpbin, gunicorn and their Flask/Werkzeug, all pinned (Python 3.11 works; the
#      only thing not installed is flasgger, which httpbin 0.10 treats as optional: no
#      Swagger UI at / and no /spec.json, which the tests do not use);
#   2. starts `gunicorn httpbin:app` on a free loopback port, 2 workers of class gthread
#      (4 threads each). gthread, not the default sync workers: sync workers answer every
#      request with `Connection: close`, so keep-alive (connection reuse, and a kept-alive
#      connection that gunicorn closes after its 2 s --keep-alive) would never be exercised.
#      GUNICORN_WORKER_CLASS=sync runs the same tests on closing connections (the tests adapt
#      to the Connection header: reuse is asserted only when the server keeps connections);
#   3. waits until /get answers, runs `swift test --filter LeashTests.HTTPBinInteropTests`
#      with LEASH_HTTPBIN_URL=http://127.0.0.1:PORT, stops the server, and exits with the
#      tests' status. Without LEASH_HTTPBIN_URL (a plain `swift test`) those tests skip.
#
# Usage (from anywhere; builds in the package's .build, so one build at a time):
#   Scripts/httpbin-interop.sh                 # all of HTTPBinInteropTests
#   Scripts/httpbin-interop.sh testDrip        # more --filter text appended: one test
# Environment: PYTHON (default python3; checked with 3.11), GUNICORN_WORKER_CLASS (gthread|sync),
#   SWIFT_TEST_TIMEOUT (seconds, default 1800), HTTPBIN_LOG (default .build/httpbin.log).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.build/httpbin-venv"
PY="${PYTHON:-python3}"
WORKER_CLASS="${GUNICORN_WORKER_CLASS:-gthread}"
LOG="${HTTPBIN_LOG:-$ROOT/.build/httpbin.log}"
# The versions checked together (Python 3.11, Debian 12). httpbin 0.10.4 runs on Flask 3 and
# Werkzeug 3 (the old 0.9.2 needed Werkzeug < 2.1); greenlet, brotlicffi and their kin come
# from httpbin's own requirements, pinned too so that a new release cannot change the run.
PINS=(
  httpbin==0.10.4 gunicorn==27.0.1 Flask==3.1.3 Werkzeug==3.1.9
  brotlicffi==1.2.1.0 greenlet==2.0.2 blinker==1.9.0 click==8.5.1 decorator==5.3.1
  itsdangerous==2.2.0 Jinja2==3.1.6 MarkupSafe==3.0.4
  cffi==2.1.1 pycparser==3.12 six==1.17.0
)
STAMP="$VENV/.leash-pins"

if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "${PINS[*]}" ]; then
  echo "== making $VENV"
  rm -rf "$VENV"
  mkdir -p "$ROOT/.build"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PINS[@]}"
  echo "${PINS[*]}" > "$STAMP"
fi

PORT="$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
URL="http://127.0.0.1:$PORT"
GUNICORN_ARGS=(-b "127.0.0.1:$PORT" --workers 2 --worker-class "$WORKER_CLASS" --no-control-socket
  --access-logfile - --error-logfile -)
[ "$WORKER_CLASS" = gthread ] && GUNICORN_ARGS+=(--threads 4)
echo "== gunicorn ${GUNICORN_ARGS[*]} httpbin:app   (log: $LOG)"
"$VENV/bin/gunicorn" "${GUNICORN_ARGS[@]}" httpbin:app >"$LOG" 2>&1 &
SERVER_PID=$!
stop_server() {
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
}
trap stop_server EXIT

for _ in $(seq 1 100); do
  # No proxy: a developer's http_proxy must not catch the loopback check.
  if "$VENV/bin/python" -c "import urllib.request as u, sys
u.build_opener(u.ProxyHandler({})).open(sys.argv[1] + '/get', timeout=1)" "$URL" 2>/dev/null; then
    break
  fi
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$LOG"; echo "gunicorn did not start" >&2; exit 1; }
  sleep 0.2
done
echo "== httpbin at $URL"

FILTER="LeashTests.HTTPBinInteropTests${1:+/$1}"
status=0
LEASH_HTTPBIN_URL="$URL" timeout "${SWIFT_TEST_TIMEOUT:-1800}" swift test --filter "$FILTER" || status=$?
exit "$status"
