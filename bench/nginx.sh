# Sourced by the client benchmarks: serves a folder with nginx on 127.0.0.1 (a free port), with
# the server block of docs/HOSTING.md and an access log of "URI STATUS BODY_BYTES_SENT" lines.
#
#   start_nginx ROOT WORKDIR [RATE]   → sets NGINX_PORT, NGINX_PID, NGINX_LOG; the caller's trap calls stop_nginx
#   stop_nginx
#
# RATE, if given, is nginx's limit_rate: bytes per second per response (e.g. 2m).
# NGINX_WORKER_CONNECTIONS, if set, is each worker's worker_connections (default 256).

start_nginx() {
  local root=$1 work=$2 rate=${3:-0} block user=""
  mkdir -p "$work/tmp"
  NGINX_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  NGINX_LOG=$work/access.log
  : > "$NGINX_LOG"
  block=$(awk '/^```nginx$/{on=1; next} /^```$/{if(on){exit}} on' docs/HOSTING.md \
    | sed -e "s|/srv/assetpacks/repo|$root|" -e "s|127.0.0.1:8080|127.0.0.1:$NGINX_PORT|")
  [ "$(id -u)" -eq 0 ] && user="user root;"
  cat > "$work/nginx.conf" <<CONF
$user
daemon off;
worker_processes $(nproc);
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections ${NGINX_WORKER_CONNECTIONS:-256}; }
http {
    log_format bytes '\$request_uri \$status \$body_bytes_sent \$http_range';
    access_log $NGINX_LOG bytes;
    keepalive_requests 100000;
    limit_rate $rate;
    client_body_temp_path $work/tmp/body;
    proxy_temp_path $work/tmp/proxy;
    fastcgi_temp_path $work/tmp/fastcgi;
    uwsgi_temp_path $work/tmp/uwsgi;
    scgi_temp_path $work/tmp/scgi;
$block
}
CONF
  timeout 3600 nginx -p "$work" -e "$work/error.log" -c "$work/nginx.conf" & NGINX_PID=$!
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/" && return 0
    sleep 0.05
  done
  echo "error: nginx did not start (see $work/error.log)" >&2
  return 1
}

stop_nginx() {
  [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
  NGINX_PID=""
}
