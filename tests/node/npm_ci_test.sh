#!/bin/sh
# npm_ci.sh itself: a lockfile out of sync with package.json must fail (exit
# 1, npm's EUSAGE in the output), never be SKIPPED; an unreachable registry
# (a closed local port, an empty cache) must be SKIPPED (77). Needs npm only.
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

mkdir "$tmp/stale"
cp "$here/package-lock.json" "$tmp/stale/"
sed 's/"webgpu": "~0.6.2"/"webgpu": "~0.5.0"/' "$here/package.json" >"$tmp/stale/package.json"
out=$(sh "$here/npm_ci.sh" "$tmp/stale" 2>&1)
status=$?
if [ "$status" -ne 1 ] || ! printf '%s' "$out" | grep -q EUSAGE; then
  echo "FAIL: a stale lockfile gave exit $status (want 1 with npm's EUSAGE log):"; printf '%s\n' "$out"; fail=1
else
  echo "ok: a stale lockfile fails with npm's log"
fi

mkdir "$tmp/offline" "$tmp/cache"
cp "$here/package.json" "$here/package-lock.json" "$tmp/offline/"
out=$(npm_config_registry=http://127.0.0.1:9/ npm_config_cache="$tmp/cache" npm_config_fetch_retries=0 \
      sh "$here/npm_ci.sh" "$tmp/offline" 2>&1)
status=$?
if [ "$status" -ne 77 ] || ! printf '%s' "$out" | grep -q ECONNREFUSED; then
  echo "FAIL: an unreachable registry gave exit $status (want 77 with npm's ECONNREFUSED log):"; printf '%s\n' "$out"; fail=1
else
  echo "ok: an unreachable registry is SKIPPED, with npm's log"
fi
exit $fail
