#!/usr/bin/env bash
# scripts/lib/xvfb.sh, the X server of post_scripts and docs-pictures.sh: a display number whose abstract
# socket another server holds (here a decoy; a server of another container in the same network namespace
# would hold it alike, unseen in /tmp) must be passed over for the next number, and the display it exports
# must be one an X client opens. The premise is checked first: a plain Xvfb on the held number fails.
#   usage: xvfb_display.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck shell=bash source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools Xvfb python3
# shellcheck source=scripts/lib/xvfb.sh
source "$SRC/scripts/lib/xvfb.sh"

opens() { # opens DISPLAY: whether an X client (libX11's XOpenDisplay) opens it
  DISPLAY=$1 python3 -c '
import ctypes, sys
x11 = ctypes.CDLL("libX11.so.6")
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
sys.exit(0 if x11.XOpenDisplay(None) else 1)' 2> /dev/null
}
free_number() { # a display number with no lock file, socket file or abstract socket
  local n
  while :; do
    n=$((30000 + RANDOM % 20000))
    [[ -e /tmp/.X$n-lock || -e /tmp/.X11-unix/X$n ]] && continue
    grep -q "@/tmp/.X11-unix/X$n\$" /proc/net/unix && continue
    echo "$n"
    return
  done
}
held=$(free_number)
next=$(free_number)
[[ $next != "$held" ]] || next=$((held + 1))

# The decoy: display $held's abstract socket, every connection closed at once.
python3 - "$held" > decoy.log 2>&1 << 'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0/tmp/.X11-unix/X" + sys.argv[1])
s.listen(8)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    c.close()
PY
decoy=$!
pids=("$decoy")
test_cleanup() { kill "${pids[@]}" 2> /dev/null || true; }
wait_for_line '^listening' decoy.log "$decoy" || fail "the decoy did not start: $(cat decoy.log)"

# The premise: a plain Xvfb on the held number does not come up.
Xvfb ":$held" -screen 0 640x480x24 -nolisten tcp -noreset > plain.log 2>&1 &
plain=$!
pids+=("$plain")
for _ in $(seq 200); do
  kill -0 "$plain" 2> /dev/null || break
  sleep 0.05
done
! kill -0 "$plain" 2> /dev/null || fail "a plain Xvfb on :$held runs beside the decoy: the test's premise does not hold"
! opens ":$held" || fail "an X client opened :$held: the test's premise does not hold"

# The helper, given the held number first.
unset DISPLAY
stratus_xvfb "$T" "$held" "$next" || fail "stratus_xvfb found no display: $(cat "$T/xvfb.log")"
pids+=("$STRATUS_XVFB_PID")
[[ $DISPLAY == ":$next" ]] || fail "stratus_xvfb chose $DISPLAY, expected :$next (:$held is held)"
grep -q "display :$held: no X client could open it" "$T/xvfb.log" || fail "no word of :$held in xvfb.log"
opens "$DISPLAY" || fail "an X client cannot open $DISPLAY"
pass "stratus_xvfb passed over :$held (its abstract socket held) for :$next, which an X client opens"

# Without numbers it draws them at random and finds one.
kill "$STRATUS_XVFB_PID"
unset DISPLAY
stratus_xvfb "$T" || fail "stratus_xvfb found no display: $(cat "$T/xvfb.log")"
pids+=("$STRATUS_XVFB_PID")
opens "$DISPLAY" || fail "an X client cannot open $DISPLAY"
pass "stratus_xvfb drew $DISPLAY, which an X client opens"
