#!/bin/sh
# agentmeter installer for a developer's machine, served by an agentmeter server at GET /install.sh with
# the server's URL, the version and the files' SHA-256 sums filled in (api/install/routes.ts).
#
#   curl -fsSL @@SERVER@@/install.sh | sh                         (no key: a device sign-in in the dashboard)
#   curl -fsSL @@SERVER@@/install.sh | sh -s -- --key am_... [--no-service] [--home DIR]
#
# Puts the collector (one JavaScript file run by Node.js) and the hook script in ~/.agentmeter/bin, writes
# the server URL and a collector key to ~/.agentmeter/collector.env (0600): the key given when it is a
# collector key (the dashboard's "Enroll this machine"), else one minted with it for this machine, which
# only sends events and reads its own user's limits and usage (docs/keys.md). Without a key it starts a
# device sign-in (RFC 8628's shape): it prints a short code and a dashboard URL, and polls until a person
# signed in to the dashboard approves that code, then receives a collector key of that person. Installs the hook for every supported
# agent found on the machine and the collector as a user service. Running it again upgrades in place and
# changes nothing else. The key may come from AGENTMETER_API_KEY instead of --key, which keeps it out of
# the process list. POSIX sh (dash, bash, zsh's sh); needs Node.js @@MIN_NODE@@ or newer, curl or wget, and
# sha256sum or shasum.
set -eu

SERVER='@@SERVER@@'
VERSION='@@VERSION@@'
MIN_NODE='@@MIN_NODE@@'
BUNDLE_SHA256='@@BUNDLE_SHA256@@'
HOOK_SHA256='@@HOOK_SHA256@@'

say() { printf 'agentmeter: %s\n' "$*"; }
die() {
  printf 'agentmeter install: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
Usage: curl -fsSL $SERVER/install.sh | sh -s -- [--key am_...] [--no-service] [--home DIR]
  --key KEY       your agentmeter API key (or AGENTMETER_API_KEY in the environment): a collector key
                  is used as is; a personal key mints a collector key for this machine. Without a key,
                  a device sign-in: approve the code it prints in the dashboard
  --no-service    do not install the collector as a user service; print how to run it instead
  --home DIR      install into DIR instead of ~/.agentmeter
EOF
}

# Whether version $1 (x.y.z) is at least $2.
version_at_least() {
  have=$1
  need=$2
  for _ in 1 2 3; do
    h=${have%%.*}
    h=${h%%[!0-9]*}
    n=${need%%.*}
    case "$h" in '' | *[!0-9]*) return 1 ;; esac
    [ "$h" -gt "$n" ] && return 0
    [ "$h" -lt "$n" ] && return 1
    have=${have#*.}
    need=${need#*.}
    [ "$have" = "$h" ] && have=0
    [ "$need" = "$n" ] && need=0
  done
  return 0
}

check_node() {
  command -v node >/dev/null 2>&1 ||
    die "Node.js is not installed (agentmeter needs Node.js $MIN_NODE or newer): install it (https://nodejs.org) and run this again"
  node_version=$(node -p 'process.versions.node' </dev/null 2>/dev/null) || die "$(command -v node) does not run; agentmeter needs Node.js $MIN_NODE or newer"
  version_at_least "$node_version" "$MIN_NODE" ||
    die "Node.js $node_version is too old (agentmeter needs $MIN_NODE or newer): install a current Node.js LTS (https://nodejs.org) and run this again"
  node_path=$(command -v node)
}

# A folder of this user only: created 0700, or found as a real folder (not a link) owned by this user.
private_dir() {
  [ -L "$1" ] && die "$1 is a symbolic link; agentmeter does not follow links in its own folders"
  if [ -e "$1" ]; then
    [ -d "$1" ] || die "$1 exists and is not a folder"
    [ -O "$1" ] || die "$1 belongs to another user"
  else
    (umask 077 && mkdir "$1") || die "cannot create $1"
  fi
  chmod 700 "$1"
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  else
    shasum -a 256 "$1" | cut -d ' ' -f 1
  fi
}

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL -o "$2" "$1" </dev/null || die "cannot download $1"
  else
    wget -q -O "$2" "$1" </dev/null || die "cannot download $1"
  fi
}

# Puts the new file $1 at $2 with mode $3, unless $2 already has the same bytes (then $1 is removed and
# $2 is left untouched). Prints "updated" when it replaced or created $2.
place() {
  if [ -f "$2" ] && [ ! -L "$2" ] && cmp -s "$1" "$2"; then
    rm -f "$1"
    chmod "$3" "$2"
  else
    chmod "$3" "$1"
    mv -f "$1" "$2"
    echo updated
  fi
}

fetch_verified() {
  tmp="$bin/.$2.download-$$"
  rm -f "$tmp"
  download "$SERVER/install/$VERSION/$2" "$tmp"
  sum=$(sha256 "$tmp")
  if [ "$sum" != "$1" ]; then
    rm -f "$tmp"
    die "$2 from $SERVER does not match its SHA-256 sum (got $sum, expected $1): nothing was changed; run the installer again"
  fi
  [ -n "$(place "$tmp" "$bin/$2" "$3")" ] && say "installed $bin/$2 ($VERSION)"
  return 0
}

# The answer code of an authenticated request to the server, 000 when there is none (curl only: the key
# goes to curl on its standard input, never in its arguments): $1 method, $2 path, $3 the key, $4 the
# file for the answer body, $5 a JSON body (optional).
api_call() {
  if [ -n "${5:-}" ]; then
    printf 'Authorization: Bearer %s\ncontent-type: application/json\n' "$3" |
      curl -sS -o "$4" -w '%{http_code}' -H @- -X "$1" --data "$5" "$SERVER$2" 2>/dev/null || true
  else
    printf 'Authorization: Bearer %s\n' "$3" | curl -sS -o "$4" -w '%{http_code}' -H @- -X "$1" "$SERVER$2" 2>/dev/null || true
  fi
}

# The scope of key $1 as the server answers it (collector or personal), or empty (refused, no answer, a
# JWT, or a server that predates scopes).
key_scope() {
  answer="$dir/.answer-$$"
  code=$(api_call GET /api/v0/auth/me "$1" "$answer")
  [ "$code" = 200 ] && sed -n 's/.*"scope":"\([a-z]*\)".*/\1/p' "$answer"
  rm -f "$answer"
}

# The value of the JSON string field $1 in file $2 (the server's answers are flat enough for sed).
json_field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$2"; }
json_number() { sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" "$2"; }

# POST $2 (JSON, on curl's standard input: the device code is in no process's arguments) to path $1;
# the answer body in file $3; prints the answer code.
post_json() {
  printf '%s' "$2" | curl -sS -o "$3" -w '%{http_code}' -H 'content-type: application/json' -X POST --data-binary @- "$SERVER$1" 2>/dev/null || true
}

# Sets $key to a collector key received by a device sign-in: a code to approve in the dashboard, then
# polls until a person approves it (or denies it, or it expires after 10 minutes).
device_login() {
  command -v curl >/dev/null 2>&1 || die "signing in without a key needs curl; or pass --key am_... (the dashboard's Machines page)"
  host=$(uname -n 2>/dev/null | tr -cd 'A-Za-z0-9.-' | cut -c 1-100)
  answer="$dir/.answer-$$"
  code=$(post_json /api/v0/auth/device "{\"name\":\"install.sh on ${host:-a machine}\"}" "$answer")
  if [ "$code" != 201 ]; then
    detail=$(json_field detail "$answer")
    rm -f "$answer"
    die "the server did not start a device sign-in (HTTP $code${detail:+: $detail}); or pass --key am_..."
  fi
  device=$(json_field deviceCode "$answer")
  user_code=$(json_field userCode "$answer")
  page=$(json_field verificationUriComplete "$answer")
  interval=$(json_number interval "$answer")
  rm -f "$answer"
  [ -n "$device" ] && [ -n "$user_code" ] && [ -n "$page" ] || die "the server's device sign-in answer was not understood"
  say "no key given: sign in to enroll this machine."
  say "open $page"
  say "and approve the code $user_code (it expires in 10 minutes). Waiting..."
  while :; do
    sleep "${interval:-5}"
    code=$(post_json /api/v0/auth/device/token "{\"deviceCode\":\"$device\"}" "$answer")
    status=$(json_field status "$answer")
    case "$code/$status" in
      200/approved)
        key=$(json_field apiKey "$answer")
        rm -f "$answer"
        [ -n "$key" ] || die "the server approved the sign-in but sent no key; run the installer again"
        say "approved: this machine has a collector key of its own (the dashboard's Machines page lists and revokes it)"
        return 0
        ;;
      200/authorization_pending) ;;
      200/slow_down) interval=$(json_number interval "$answer") ;;
      200/access_denied)
        rm -f "$answer"
        die "the sign-in was denied in the dashboard; nothing was installed"
        ;;
      200/expired_token)
        rm -f "$answer"
        die "the code expired before it was approved; run the installer again for a new one"
        ;;
      *)
        detail=$(json_field detail "$answer")
        rm -f "$answer"
        die "the server refused the device sign-in (HTTP $code${detail:+: $detail}); run the installer again"
        ;;
    esac
  done
}

# Sets $key to the collector key this machine keeps (docs/keys.md):
# - a collector key given is used as is;
# - with a personal key given, the collector key written by an earlier run is kept while the server still
#   accepts it (a run again changes nothing), else a collector key of the same user is minted for this
#   machine;
# - without curl, or when the server cannot tell (an older server), the key given is written, with a warning.
collector_key() {
  if [ -z "$key" ]; then
    # Run again without a key: the collector key of an earlier run is kept while the server accepts it.
    old=
    [ -f "$dir/collector.env" ] && old=$(sed -n 's/^AGENTMETER_API_KEY=//p' "$dir/collector.env")
    if [ -n "$old" ] && command -v curl >/dev/null 2>&1 && [ "$(key_scope "$old")" = collector ]; then
      key=$old
      return 0
    fi
    device_login
    return 0
  fi
  if ! command -v curl >/dev/null 2>&1; then
    say "warning: without curl the key is written as given; give a collector key (the dashboard's Machines page, Enroll this machine)"
    return 0
  fi
  scope=$(key_scope "$key")
  [ "$scope" = collector ] && return 0
  if [ "$scope" != personal ]; then
    say "warning: the server did not say what this key may do: it is written as given"
    return 0
  fi
  old=
  [ -f "$dir/collector.env" ] && old=$(sed -n 's/^AGENTMETER_API_KEY=//p' "$dir/collector.env")
  if [ -n "$old" ] && [ "$old" != "$key" ] && [ "$(key_scope "$old")" = collector ]; then
    key=$old
    return 0
  fi
  host=$(uname -n 2>/dev/null | tr -cd 'A-Za-z0-9.-' | cut -c 1-100)
  answer="$dir/.answer-$$"
  code=$(api_call POST /api/v0/admin/users/me/keys "$key" "$answer" "{\"scope\":\"collector\",\"name\":\"install.sh on ${host:-a machine}\"}")
  minted=
  [ "$code" = 201 ] && minted=$(sed -n 's/.*"apiKey":"\(am_[A-Za-z0-9_-]*\)".*/\1/p' "$answer")
  rm -f "$answer"
  [ -n "$minted" ] || die "the server did not mint a collector key for this machine (HTTP $code); run the installer again"
  key=$minted
  say "minted a collector key for this machine (the dashboard's Machines page lists and revokes it)"
}

main() {
  key=${AGENTMETER_API_KEY:-}
  service=1
  dir=
  while [ $# -gt 0 ]; do
    case "$1" in
      --key)
        [ $# -ge 2 ] || die "--key needs a value"
        key=$2
        shift 2
        ;;
      --key=*)
        key=${1#--key=}
        shift
        ;;
      --no-service)
        service=0
        shift
        ;;
      --home)
        [ $# -ge 2 ] || die "--home needs a folder"
        dir=$2
        shift 2
        ;;
      --home=*)
        dir=${1#--home=}
        shift
        ;;
      -h | --help)
        usage
        exit 0
        ;;
      *) die "unknown option $1 (see --help)" ;;
    esac
  done
  case "$key" in *[!A-Za-z0-9_.-]*) die "the key holds characters an agentmeter key never has; copy it again" ;; esac
  if [ -z "$dir" ]; then
    [ -n "${HOME:-}" ] || die "HOME is not set; pass --home DIR"
    dir="$HOME/.agentmeter"
  fi
  case "$dir" in
    /*) ;;
    *) die "--home takes an absolute path" ;;
  esac
  case "$dir" in *"'"* | *'
'*) die "--home takes a path without quotes or line breaks" ;; esac
  command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || die "neither curl nor wget is installed"
  command -v sha256sum >/dev/null 2>&1 || command -v shasum >/dev/null 2>&1 ||
    die "neither sha256sum nor shasum is installed: the downloads cannot be verified"
  check_node

  parent=$(dirname "$dir")
  [ -d "$parent" ] || mkdir -p "$parent" || die "cannot create $parent"
  private_dir "$dir"
  bin="$dir/bin"
  private_dir "$bin"
  umask 077

  collector_key
  fetch_verified "$BUNDLE_SHA256" agentmeter.mjs 600
  fetch_verified "$HOOK_SHA256" agentmeter-hook.sh 700

  # The command: this machine's Node.js on the bundle, with AGENTMETER_HOME set to this install.
  tmp="$bin/.agentmeter.new-$$"
  cat >"$tmp" <<EOF
#!/bin/sh
# agentmeter $VERSION from $SERVER (installed by its install.sh). Runs the bundle beside it on Node.js.
AGENTMETER_HOME='$dir'
export AGENTMETER_HOME
node='$node_path'
[ -x "\$node" ] || node=node
exec "\$node" "\$AGENTMETER_HOME/bin/agentmeter.mjs" "\$@"
EOF
  [ -n "$(place "$tmp" "$bin/agentmeter" 700)" ] && say "installed $bin/agentmeter"

  # The server and key for the collector, private whatever the umask was (printf is a shell builtin: the
  # key is in no process's arguments here).
  tmp="$dir/.collector.env.new-$$"
  printf '# agentmeter collector settings, written by %s/install.sh\nAGENTMETER_SERVER=%s\nAGENTMETER_API_KEY=%s\n' "$SERVER" "$SERVER" "$key" >"$tmp"
  [ -n "$(place "$tmp" "$dir/collector.env" 600)" ] && say "wrote $dir/collector.env (server $SERVER and the collector key, mode 0600)"

  "$bin/agentmeter" hooks install --all-found </dev/null || die "installing the hooks failed (see above); run the installer again once fixed"

  if [ "$service" = 1 ]; then
    # Where no service manager can be used (a container, WSL, a minimal Linux), it says how the collector
    # runs instead and the install still succeeds: hooks and settings are in place, events wait in the spool.
    "$bin/agentmeter" service install --if-available </dev/null || die "installing the collector service failed (see above)"
  else
    say "no service installed (--no-service): run the collector with $bin/agentmeter collect"
  fi
  say "done: $bin/agentmeter doctor checks this machine"
}

main "$@"
