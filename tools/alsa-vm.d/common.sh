# tools/alsa-vm.d/common.sh: messages, quoting and timing helpers (sourced by tools/alsa-vm).
# shellcheck shell=bash

say() { printf '%s: %s\n' "$prog" "$*" >&2; }
dbg() { [ "$DEBUG" = 1 ] && say "$*"; return 0; }
die() { say "error: $*"; exit "$EXIT_INFRA"; }

# Quote one word for a POSIX shell.
shq() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
