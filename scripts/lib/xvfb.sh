# shellcheck shell=bash
# shellcheck disable=SC2034  # STRATUS_XVFB_PID is for the scripts that source it
# An X server of the caller's own for ParaView's pvbatch, which needs one even to render off screen.
# Sourced; defines
#   stratus_xvfb DIR [N...]
#                      starts Xvfb (-noreset: it stays as it is between clients) on a display number drawn
#                      at random from 100-29999 whose lock file and socket are free, checks that an X client
#                      opens it, exports DISPLAY and sets STRATUS_XVFB_PID (the caller kills it when done).
#                      Up to 5 numbers are tried (the numbers N when given: tests); returns 1 when none
#                      works, the reasons in DIR/xvfb.log.
# Why not `Xvfb -displayfd` alone (the lowest free number, :0 on a fresh machine): a CI run of
# tests/post_scripts.sh had its Xvfb report :0 ready, and then pvbatch aborted twice in a row with "bad X
# server connection"; why was not found. Here a display is used only once a client has opened it, and a
# number another server holds (its abstract socket, which belongs to the network namespace and so may be
# another container's, not seen in /tmp) or that fails otherwise is passed over for the next.
stratus_xvfb() {
  local dir=$1 n pid tries
  shift
  tries=("$@")
  [[ ${#tries[@]} -gt 0 ]] || for _ in 1 2 3 4 5; do tries+=($((100 + (RANDOM * 32768 + RANDOM) % 29900))); done
  for n in "${tries[@]}"; do
    [[ -e /tmp/.X$n-lock || -e /tmp/.X11-unix/X$n ]] && continue
    Xvfb ":$n" -screen 0 1280x1024x24 -nolisten tcp -noreset >> "$dir/xvfb.log" 2>&1 &
    pid=$!
    for _ in $(seq 200); do
      [[ -S /tmp/.X11-unix/X$n ]] && break
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.05
    done
    # A client must reach this server: XOpenDisplay through libX11 (installed with ParaView).
    if [[ -S /tmp/.X11-unix/X$n ]] && DISPLAY=":$n" python3 -c '
import ctypes, sys
x11 = ctypes.CDLL("libX11.so.6")
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
d = x11.XOpenDisplay(None)
sys.exit(0 if d else 1)' >> "$dir/xvfb.log" 2>&1; then
      DISPLAY=":$n"
      export DISPLAY
      STRATUS_XVFB_PID=$pid
      return 0
    fi
    echo "display :$n: no X client could open it" >> "$dir/xvfb.log"
    kill "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
  done
  return 1
}
