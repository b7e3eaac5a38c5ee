# Sourced by the bench rows: a free loopback port, and a private nginx under a directory.

# Prints a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_nginx DIR NAME CONNECTIONS HTTP_BLOCK: writes DIR/nginx.conf (the common frame: daemon,
# pid, logs and temp paths under DIR, one worker; as root the workers stay root, since nobody
# cannot read $OUT) around HTTP_BLOCK, starts nginx and leaves its pid in $OUT/nginx-NAME.pid.
start_nginx() {
  local dir=$1 name=$2 connections=$3 block=$4
  local user_line=""
  [ "$(id -u)" = 0 ] && user_line="user root;"
  mkdir -p "$dir/tmp" "$dir/logs"
  cat > "$dir/nginx.conf" <<CONF
$user_line
daemon on;
pid $dir/nginx.pid;
error_log $dir/logs/error.log;
worker_processes 1;
events { worker_connections $connections; }
http {
    client_body_temp_path $dir/tmp/body; proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi; uwsgi_temp_path $dir/tmp/uwsgi; scgi_temp_path $dir/tmp/scgi;
$block
}
CONF
  /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log"
  cp "$dir/nginx.pid" "$OUT/nginx-$name.pid"
}
