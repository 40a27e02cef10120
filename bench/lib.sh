# shellcheck shell=bash
# lib.sh: helpers shared by the bench scripts. Source it after `set -euo pipefail`, with these set:
#   bench_name  the script's name, prefixed to its error messages
#   root        the repository root (commands are shown relative to it)
# Every bench script that starts processes sources it.

bench_die() {
  echo "${bench_name:-bench}: $*" >&2
  exit 1
}

# alive PID: the process exists and is not a zombie.
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

# stop_pid PID: SIGTERM, up to 5 s for it to exit, then SIGKILL; reaps it if it is our child.
stop_pid() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    alive "$pid" || break
    sleep 0.05
  done
  alive "$pid" && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
}

# stop_tree PID: stop_pid on the children of PID (e.g. the command under /usr/bin/time), then PID.
stop_tree() {
  local pid=$1 kids kid
  kids=$(cat /proc/"$pid"/task/*/children 2>/dev/null || true)
  for kid in $kids; do
    stop_pid "$kid"
  done
  stop_pid "$pid"
}

# cpu_ticks PID: utime+stime (fields 14 and 15 of /proc/PID/stat) in clock ticks, all threads.
cpu_ticks() {
  local stat f
  stat=$(<"/proc/$1/stat")
  # Fields after the parenthesised command name start at field 3 (state): field N is f[N-3].
  read -r -a f <<<"${stat##*) }"
  echo $((f[11] + f[12]))
}

# sys_ticks: machine-wide busy (user nice system irq softirq) and steal time, in clock ticks.
sys_ticks() {
  local _ user nice system irq softirq steal
  read -r _ user nice system _ _ irq softirq steal _ </proc/stat
  echo "$((user + nice + system + irq + softirq)) $steal"
}

# show ARGV...: the command as a copy-pastable line, paths relative to the repo root.
show() {
  local line
  line=$(printf '%q ' "$@")
  line=${line% }
  echo "${line//"$root/"/}"
}

built_with() { go version "$1" 2>/dev/null | sed 's/^[^:]*: //' || echo unknown; }

# bench_pin: sets server_pin and client_pin (taskset prefixes: server on CPU 1, client on CPU 0)
# and pinning (a sentence for the results), or leaves both unpinned: on request (BENCH_PIN=0,
# how users run the tools: every client sizes its own GOMAXPROCS), or with a warning when
# taskset is missing. pin_suffix is "" pinned and "-unpinned" otherwise, for result file names.
bench_pin() {
  # shellcheck disable=SC2034 # read by the sourcing script
  server_pin=() client_pin=() pin_suffix=-unpinned
  if [[ ${BENCH_PIN:-1} == 0 ]]; then
    # shellcheck disable=SC2034
    pinning="unpinned (BENCH_PIN=0): clients and server share every CPU and keep their own GOMAXPROCS"
  elif command -v taskset >/dev/null && taskset -c 0,1 true 2>/dev/null; then
    # shellcheck disable=SC2034
    server_pin=(taskset -c 1) client_pin=(taskset -c 0) pin_suffix=""
    # shellcheck disable=SC2034
    pinning="server on CPU 1, client on CPU 0 (taskset); the Go runtime sizes GOMAXPROCS from the CPU affinity mask, so pinned clients and server run with GOMAXPROCS=1"
  else
    # shellcheck disable=SC2034
    pinning="UNPINNED: taskset missing or CPUs 0 and 1 not both usable; expect more noise"
    echo "${bench_name:-bench}: warning: $pinning" >&2
  fi
}

# bench_env_header FORTIO BINARY...: Markdown list items on the machine, the toolchain, the
# binaries (with the Go version each was built with) and the commit.
bench_env_header() {
  local fortio=$1 bin cpu_model go_ver git_rev
  shift
  cpu_model=$(grep -m1 -E '^(model name|Model|Hardware)' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
  go_ver=$(go version 2>/dev/null || echo "go version: go not on PATH")
  git_rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "no commit")
  if [[ -n $(git -C "$root" status --porcelain 2>/dev/null | head -n 1) ]]; then
    git_rev="$git_rev (working tree has uncommitted changes)"
  fi
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "- Machine: $(nproc) CPUs (nproc), ${cpu_model:-unknown CPU}, $(uname -sr)"
  echo "- Go: ${go_ver#go version }"
  echo "- fortio: $("$fortio" version 2>&1 | head -n 1 || true) (binary built with $(built_with "$fortio"))"
  for bin in "$@"; do
    echo "- ${bin##*/}: $(show "$bin") (built with $(built_with "$bin"))"
  done
  echo "- Barrage commit: $git_rev"
}
