# Sourced by the upload benchmark: runs moto_server (an in-memory S3 endpoint) on 127.0.0.1.
#
#   restart_moto WORKDIR BUCKET   → a fresh moto (the previous one stopped, its memory freed) on
#                                   $MOTO_PORT (chosen on first use) with BUCKET created
#   stop_moto WORKDIR
#
# moto keeps every object in memory: restarting it before each run keeps RAM flat.

stop_moto() {
  local work=$1 pid
  [ -f "$work/moto.pid" ] || return 0
  pid=$(cat "$work/moto.pid"); rm -f "$work/moto.pid"
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

restart_moto() {
  local work=$1 bucket=$2
  mkdir -p "$work"
  stop_moto "$work"
  [ -n "${MOTO_PORT:-}" ] || MOTO_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  export MOTO_PORT
  setsid timeout 1800 python3 -m moto.server -H 127.0.0.1 -p "$MOTO_PORT" > "$work/moto.log" 2>&1 < /dev/null &
  echo $! > "$work/moto.pid"
  for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$MOTO_PORT/" && break; sleep 0.1; done
  curl -sf -o /dev/null -X PUT "http://127.0.0.1:$MOTO_PORT/$bucket"
}
