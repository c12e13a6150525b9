#!/bin/sh
# `npm ci` in DIR, for ctest fixtures. Exit 77 (SKIPPED) only when the npm
# registry cannot be reached: npm failed with a network error code and
# `npm ping` fails too. Any other failure (a lockfile out of date, a broken
# package, a full disk) fails the test, and npm's whole log is printed either
# way, so a real failure is never reported as a skip.
#
# usage: npm_ci.sh DIR
dir=$1
cd "$dir" || { echo "npm_ci.sh: no folder '$dir'"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
npm ci --no-audit --no-fund >"$log" 2>&1
status=$?
if [ "$status" -eq 0 ]; then
  tail -n 5 "$log"
  exit 0
fi
network='code (ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT)'
if grep -Eq "$network" "$log" && ! npm ping --fetch-retries=0 >/dev/null 2>&1; then
  echo "skipped: the npm registry ($(npm config get registry)) cannot be reached; npm ci said:"
  cat "$log"
  exit 77
fi
echo "npm ci failed in $dir (exit $status), and the registry is reachable or the error is not a network one:"
cat "$log"
exit 1
