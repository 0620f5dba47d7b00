#!/usr/bin/env bash
# A throwaway SpamAssassin daemon for the spam-check tests and the bench:
# Debian's spamd, on loopback only, offline (-L: no DNS, URIBL, Razor, Pyzor or
# other network tests), no Bayes, no per-user config, its home in a fresh
# temporary folder. It runs as `nobody` when started as root (spamd refuses root).
#
#   tests/support/spamd.sh start [PORT]   prints the URL, e.g. spamd://127.0.0.1:57830
#   tests/support/spamd.sh stop           stops the daemon and removes its folder
#
# The state (folder, pid) lives in .tmp/spamd.env of the checkout, so `stop`
# finds what `start` made.
set -euo pipefail
cd "$(dirname "$0")/../.."
STATE=${INBOXKIT_SPAMD_STATE:-.tmp/spamd.env}

start() {
  local port=${1:-57830}
  if [[ -f $STATE ]]; then
    echo "spamd.sh: a daemon is already recorded in $STATE; run '$0 stop' first." >&2
    exit 1
  fi
  local bin
  bin=$(command -v spamd || ls /usr/sbin/spamd 2>/dev/null || true)
  if [[ -z "$bin" ]]; then
    echo "spamd.sh: no spamd; install Debian's spamd package (apt-get install -y spamd)." >&2
    exit 1
  fi
  local dir user=()
  dir=$(mktemp -d /tmp/inboxkit-spamd.XXXXXX)
  if [[ $(id -u) -eq 0 ]]; then chown nobody "$dir"; user=(-u nobody); fi
  mkdir -p .tmp
  "$bin" --listen "127.0.0.1:$port" -L -x "${user[@]}" -H "$dir" --max-children 2 --min-children 1 \
    --cf='use_bayes 0' --cf='use_razor2 0' --cf='use_pyzor 0' --cf='dns_available no' --cf='use_auto_whitelist 0' \
    --pidfile "$dir/spamd.pid" -s stderr </dev/null >/dev/null 2>"$dir/spamd.log" &
  printf 'SPAMD_DIR=%q\nSPAMD_PID=%q\nSPAMD_PORT=%q\n' "$dir" "$!" "$port" >"$STATE"
  # The daemon holds none of this script's output: a caller reading it with $(…) would wait for the daemon to end.
  # Ready once it says so (loading the rules takes a second or two).
  for _ in $(seq 1 150); do
    if grep -q 'server started on' "$dir/spamd.log" 2>/dev/null; then echo "spamd://127.0.0.1:$port"; return 0; fi
    if ! kill -0 "$!" 2>/dev/null; then cat "$dir/spamd.log" >&2; stop; exit 1; fi
    sleep 0.2
  done
  echo "spamd.sh: spamd did not start within 30 s:" >&2
  cat "$dir/spamd.log" >&2
  stop
  exit 1
}

stop() {
  [[ -f $STATE ]] || return 0
  # shellcheck disable=SC1090
  source "$STATE"
  if kill -0 "$SPAMD_PID" 2>/dev/null; then
    kill "$SPAMD_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SPAMD_PID" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$SPAMD_DIR" "$STATE"
}

case "${1:-}" in
  start) start "${2:-}" ;;
  stop) stop ;;
  *) echo "usage: $0 start [PORT] | stop" >&2; exit 2 ;;
esac
