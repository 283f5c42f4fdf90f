#!/bin/sh
# agentmeter hook: spools one agent event, Maildir-style, and gets out of the agent's way.
#
#   agentmeter-hook.sh <agent> [prompt]   (agent: claude | droid | codex | gemini | qwen; "prompt" on the prompt event only;
#                                          both set by `agentmeter hooks install`)
#
# The event (JSON on stdin) is written to $AGENTMETER_HOME/spool/tmp/<name>, then given its name in
# spool/new/<name> by a hard link, as the original Maildir delivers (`mv` where the file system has no
# hard links): a reader never sees a half-written file, no locks are taken, and names are unique so no
# event overwrites another. The tmp/ name is left to the collector, which removes it with the event once
# shipped or quarantined (a tmp/ file with a twin in new/ is delivered; one without is being written, or
# was abandoned).
# `ln` rather than `mv`: coreutils' mv loads four more libraries (SELinux, ACL, PCRE) on every exec,
# ~0.5 ms of the hook's ~3.5 ms. The collector does all parsing; this script never looks inside the JSON.
#
# Spool file format: a header of "key=value" lines, a blank line, then the raw stdin bytes.
#   agentmeter-spool=1     format version
#   agent=                 which agent ran the hook
#   client=                $AGENTMETER_CLIENT (wins over every other hint)
#   entrypoint=            $CLAUDE_CODE_ENTRYPOINT (sdk-* means headless Claude Code)
#   droid_exec=1           the parent process is `droid exec` (Linux: read from /proc)
#   gemini_headless=1      the Gemini CLI process runs one-shot (-p, a positional prompt, or stdin not a terminal)
#   gemini_mode=           the approval mode Gemini CLI was started with (-y/--yolo, --approval-mode), or
#                          $AGENTMETER_GEMINI_MODE where set (no /proc, or an alias that sets it with the flag)
#   codex_exec=1           only when an ancestor is `codex exec` (Linux: /proc); the collector also reads
#                          `codex exec` from the session rollout
#                          (Qwen Code's `qwen -p` leaves nothing to read without a process: its /proc
#                          cmdline loses the argument boundaries in `read`; headless Qwen runs set
#                          AGENTMETER_CLIENT.)
#   time=                  $AGENTMETER_EVENT_TIME (replay override) or, without /proc, `date +%s` seconds
#   session=, message=     $AGENTMETER_SESSION_ID, $AGENTMETER_MESSAGE_ID: set by `agentmeter computer run`
#                          for the agent it starts, so the server can tie a session's token usage to it
# Event time: the spool file's modification time (ns precision, set by the last write below and kept by
# the link), unless time= is present. Reading the clock from the file system spares a `date` process.
#
# Files and folders it creates are private (umask 077), and it writes only into spool folders of this
# user that are not links, in an $AGENTMETER_HOME of this user that is not one; the limit files below are
# read from there only.
#
# Cost: one `cat` and one `ln`; everything else is a shell builtin (a second `cat` drains stdin when the
# event was not copied whole: cut short, or not spooled at all; a `head` reads the start of an ancestor's
# command line longer than 512 bytes, for Droid, Codex and Gemini). It exits 0, with stderr silenced, whatever the input (empty, huge, binary) or the state
# of the spool (missing, read-only, disk full). Files are capped at 1 MiB + 4 KiB (a body of at least
# 1 MiB + 1 byte after the header): the collector marks a file cut there truncated.
#
# The one exception: credit limits. When the organization enforces them and this user is over their
# monthly limit, the collector writes $AGENTMETER_HOME/limit-exceeded with the message; on
# UserPromptSubmit ("prompt") the hook then prints it to the agent and exits 2, which blocks the prompt.
# Before that, at 90% of the limit, the collector writes $AGENTMETER_HOME/limit-warning (a hook answer,
# `{"systemMessage": ...}`); the next prompt's hook prints it on stdout, where the agent shows it to the
# developer, and removes it (one `rm`, once a month). Each costs one file test per prompt: no Node
# start, no network call.

# A closed stderr (the agent's, or a wrapper's `2>&-`) fails the redirection, and a redirection that fails
# on `exec` ends a POSIX shell with status 2, which agents read as "block this": `command` keeps the hook
# running, with fd 3 on /dev/null then.
command exec 3>&2 2>/dev/null || command exec 3>/dev/null 2>/dev/null
# What this script creates (spool folders and files) is this user's alone, whatever the agent's umask.
umask 077
# cat and ln need no locale: in the C locale they skip loading the locale's files, which under the usual
# UTF-8 locale costs each of them ~0.2 ms (about an eighth of the hook's time).
LC_ALL=C; export LC_ALL
# A file-size limit (the hook's own below, or one the agent runs under) makes a write fail with EFBIG
# rather than the kernel kill the hook, or its `cat`, and perhaps dump core into the agent's folder.
trap '' XFSZ
# The spool file's size limit below, in `ulimit -f` blocks: 2056 blocks of 512 bytes (1 MiB + 4 KiB) in
# dash and the other POSIX shells, and in bash 4 and later in POSIX mode (`set -o posix` makes it so when
# someone runs `bash agentmeter-hook.sh`); bash 3 (macOS's /bin/sh) counts 1024-byte blocks even there.
# `command` keeps a shell that has no such option (dash, with a BASH_VERSION in its environment) running.
case ${BASH_VERSION:-} in
  '') limit_blocks=2056 ;;
  [123].*) limit_blocks=1028 ;;
  *) command set -o posix; limit_blocks=2056 ;;
esac
agent=${1:-unknown}; agent=${agent%%[!a-z]*}
# Without HOME (an agent started by `env -i`, a service that sets none), the home the collector uses too:
# the password database's, as Node's os.homedir() finds it (getent, or ~user where there is no getent);
# never a shared folder such as /tmp, where the collector would never look. Processes are spent only here.
if [ -z "${AGENTMETER_HOME:-}" ] && [ -z "${HOME:-}" ]; then
  entry=$(getent passwd "$(id -u)") || entry=
  entry=${entry#*:*:*:*:*:}; HOME=${entry%%:*}
  if [ -z "$HOME" ]; then
    user=$(id -un) || user=
    case $user in '' | -* | *[!A-Za-z0-9._-]*) ;; *) eval "HOME=~$user" ;; esac
  fi
  case $HOME in /*) ;; *) HOME= ;; esac
fi
# Empty when no home is known: the event is then not spooled.
home=${AGENTMETER_HOME:-${HOME:+$HOME/.agentmeter}}
spool=$home/spool
# Set once the event is copied whole (stdin read to its end); until then the end drains stdin.
drained=

# A unique name without spawning a process: boot id + uptime (10 ms ticks) + pid. A pid is not reused
# within one tick, and the boot id separates reboots. Elsewhere (no /proc) fall back to `date`.
if read -r boot < /proc/sys/kernel/random/boot_id && read -r up _ < /proc/uptime; then
  name="$boot.$up.$$"
  clock=${AGENTMETER_EVENT_TIME:-}
else
  now=$(date +%s)
  name="$now.$$.${HOSTNAME:-host}"
  clock=${AGENTMETER_EVENT_TIME:-${now}000}
fi

# `command_line PID`: sets cmd to PID's command line as `read` gives it (its arguments' NUL separators
# dropped, so "droid exec" reads "droidexec"), cut at COMMAND_LINE_MOST bytes, and parent to PID's parent.
# `read` takes one byte a system call, ~3 us each from /proc/PID/cmdline: a headless run's one-line prompt
# of 130 KB (`codex exec "..."`) held every hook of the run 0.4 s. The line's length is in /proc/PID/stat
# (arg_end - arg_start, its 48th and 49th fields; Linux 3.5 and later), which also gives the parent: a
# longer line is cut by `head -c`, one process, only then. The command name, stat's 2nd field, may hold
# spaces and parentheses: the fields are counted after its last ") ".
COMMAND_LINE_MOST=512
command_line() {
  cmd=; parent=; line_of=$1
  read -r stat < "/proc/$line_of/stat" || return 1
  set -- ${stat##*) }
  parent=$2
  # Only digits reach the arithmetic: an error there would end the shell with status 2 ("block").
  long=
  if [ "$#" -ge 47 ]; then
    case ${46}${47} in
      *[!0-9]*) ;;
      *) [ "$(( ${47} - ${46} ))" -gt "$COMMAND_LINE_MOST" ] && long=1 ;;
    esac
  fi
  if [ -n "$long" ]; then
    cmd=$(head -c "$COMMAND_LINE_MOST" "/proc/$line_of/cmdline")
  else
    # cmdline has no trailing newline: read sets cmd but reports end of file.
    read -r cmd < "/proc/$line_of/cmdline" || :
  fi
  [ -n "$cmd" ]
}

# `exec_ancestor FOUND STOP`: whether one of the nearest three ancestors' command lines holds FOUND
# (before one holding STOP, when given): only the two words together ("droidexec") count.
exec_ancestor() {
  pid=$PPID
  for step in 1 2 3; do
    command_line "$pid" || return 1
    case $cmd in *"$1"*) return 0 ;; esac
    if [ -n "$2" ]; then case $cmd in *"$2"*) return 1 ;; esac; fi
    pid=$parent
  done
  return 1
}

# Headless Droid: its parent (or the shell between) is `droid exec ...`; the first droid that is not stops.
droid_exec=
if [ "$agent" = droid ] && [ -z "${AGENTMETER_CLIENT:-}" ] && exec_ancestor droidexec droid; then droid_exec=1; fi

# Headless Codex CLI: `codex exec ...` is the process that runs the hook (through `$SHELL -lc`, which a
# shell may replace by the script itself), so up to three ancestors are read. The shell's own command
# line holds this script's "codex" argument, so only "codexexec" counts, and no ancestor stops the walk.
# Options before `exec` hide it; the collector also reads the session rollout.
codex_exec=
if [ "$agent" = codex ] && [ -z "${AGENTMETER_CLIENT:-}" ] && exec_ancestor codexexec ''; then codex_exec=1; fi

# Gemini CLI: its payload says neither headless nor approval mode, its process's arguments do (Linux).
# The nearest ancestor whose command line names gemini (the shell Gemini starts the hook through names
# this script, and is skipped) is read once with `tr`, for gemini only: the arguments are NUL-separated,
# which `read` cannot split. One-shot: -p/--prompt or a positional prompt without -i, or stdin that is a
# pipe, a socket or a file (interactive Gemini needs a terminal). The mode: -y/--yolo, --approval-mode[=]<mode>.
# Only these two facts are kept; the command line (it holds the prompt) is never written anywhere.
gemini_headless=; gemini_mode=
if [ "$agent" = gemini ]; then
  pid=$PPID; found=
  for step in 1 2 3; do
    command_line "$pid" || break
    case $cmd in
      *agentmeter-hook*) ;;
      *gemini*) found=1; break ;;
    esac
    pid=$parent
  done
  if [ -n "$found" ]; then
    { [ -p "/proc/$pid/fd/0" ] || [ -S "/proc/$pid/fd/0" ] || [ -f "/proc/$pid/fd/0" ]; } && piped=1 || piped=
    args=$(tr '\0' '\n' < "/proc/$pid/cmdline")
    script=; skip=; interactive=; oneshot=$piped
    saved_ifs=$IFS; IFS='
'
    set -f
    for a in $args; do
      if [ -z "$script" ]; then
        case $a in -*) ;; *gemini*) script=1 ;; esac
        continue
      fi
      if [ -n "$skip" ]; then
        case $a in
          -*) skip= ;;
          *) [ "$skip" = mode ] && gemini_mode=$a; skip=; continue ;;
        esac
      fi
      case $a in
        -p | --prompt) oneshot=1; skip=1 ;;
        --prompt=*) oneshot=1 ;;
        -i | --prompt-interactive) interactive=1; skip=1 ;;
        --prompt-interactive=*) interactive=1 ;;
        -y | --yolo) gemini_mode=yolo ;;
        --approval-mode) skip=mode ;;
        --approval-mode=*) gemini_mode=${a#--approval-mode=} ;;
        -m | --model | -e | --extensions | -o | --output-format | -r | --resume | --sandbox-image | --proxy | \
          --allowed-tools | --allowed-mcp-server-names | --include-directories | --policy | --telemetry-target | \
          --telemetry-otlp-endpoint | --telemetry-otlp-protocol | --telemetry-outfile) skip=1 ;;
        -*) ;;
        *) oneshot=1 ;;
      esac
    done
    set +f; IFS=$saved_ifs
    [ -n "$oneshot" ] && [ -z "$interactive" ] && gemini_headless=1
  fi
fi

# Header values come from the environment: each is cut at its first character outside [A-Za-z0-9_.-]
# (with builtins only), so no value can break a header line.
client=${AGENTMETER_CLIENT:-}; client=${client%%[!A-Za-z0-9_.-]*}
entrypoint=${CLAUDE_CODE_ENTRYPOINT:-}; entrypoint=${entrypoint%%[!A-Za-z0-9_.-]*}
session=${AGENTMETER_SESSION_ID:-}; session=${session%%[!A-Za-z0-9_.-]*}
message=${AGENTMETER_MESSAGE_ID:-}; message=${message%%[!A-Za-z0-9_.-]*}
gemini_mode=${AGENTMETER_GEMINI_MODE:-$gemini_mode}; gemini_mode=${gemini_mode%%[!A-Za-z0-9_.-]*}
clock=${clock%%[!0-9TZ:.+-]*}

# Folders are created only where no link leads elsewhere (mkdir -p would otherwise create them through it),
# and never in someone else's $AGENTMETER_HOME.
[ -z "$home" ] || [ -d "$spool/new" ] || { [ ! -L "$home" ] && [ ! -L "$spool" ] && { [ ! -e "$home" ] || [ -O "$home" ]; } \
  && mkdir -p "$spool/tmp" "$spool/new"; }

# $AGENTMETER_HOME must be this user's, not a link: in someone else's folder (a HOME of /tmp, a shared
# folder named by AGENTMETER_HOME) its owner could swap the spool for their own, or write the limit files
# whose text the hook hands to the agent (blocking its prompts, or speaking to it as the collector).
own_home=
if [ -n "$home" ] && [ ! -L "$home" ] && [ -O "$home" ]; then own_home=1; fi

# Only into folders of this user that are not links (test builtins, no process): a spool/new that leads
# elsewhere would put the event into someone else's folder. Otherwise the event is not spooled; the
# collector says why (it refuses such a spool too).
if [ -n "$own_home" ] && [ ! -L "$spool" ] && [ ! -L "$spool/tmp" ] && [ ! -L "$spool/new" ] \
  && [ -O "$spool" ] && [ -O "$spool/tmp" ] && [ -O "$spool/new" ]; then
  tmp="$spool/tmp/$name"
  # Gives the written file its name in new/: a hard link, or a rename where the file system has none.
  deliver() { ln "$tmp" "$spool/new/$name" || mv "$tmp" "$spool/new/$name"; }
  # The body is copied by one `cat` under a file-size limit of 1 MiB + 4 KiB (the collector's
  # HOOK_FILE_CAP; limit_blocks above): one process where `head -c` and a draining `cat` were two. At the
  # limit cat's write fails and cat stops (SIGXFSZ is ignored). Only the soft limit is set: it may lift a
  # lower soft limit of the agent's for the hook's own writes, while a lower hard limit refuses ours and
  # cuts instead. It is set in this shell, not in a subshell around cat (a full fork per event); the only
  # later write to a regular file, the limit message, lifts it first.
  ulimit -S -f "$limit_blocks"
  if {
    printf 'agentmeter-spool=1\nagent=%s\nclient=%s\nentrypoint=%s\ndroid_exec=%s\ngemini_headless=%s\ngemini_mode=%s\ntime=%s\nsession=%s\nmessage=%s\n' \
      "$agent" "$client" "$entrypoint" "$droid_exec" "$gemini_headless" "$gemini_mode" "$clock" "$session" "$message"
    # Only Codex's hook adds its line (the other agents' headers stay as they were).
    if [ -n "$codex_exec" ]; then printf 'codex_exec=1\n\n'; else printf '\n'; fi
    cat
  } > "$tmp"; then
    deliver || rm -f "$tmp"
    drained=1
  else
    # Cut short: at the limit (an oversized event), or by a full disk (cat ends with status 1). What was
    # written still goes to new/, where the collector marks an event cut at the limit truncated and
    # quarantines any other cut one with its reason, rather than losing it without a word. A cat killed
    # by a signal (status 128 + the signal) left a part the collector could only quarantine as "not
    # JSON": it is removed, as is an empty file. `$?` here is the status of the copy above.
    if [ $? -lt 128 ] && [ -s "$tmp" ]; then deliver || rm -f "$tmp"; else rm -f "$tmp"; fi
  fi
fi

# Drain whatever is left of an event that was not copied whole, so the agent's write never meets a
# closed pipe.
[ -n "$drained" ] || cat > /dev/null

if [ -n "$own_home" ] && [ "${2:-}" = prompt ] && [ -f "$home/limit-exceeded" ]; then
  # The agent's stderr could be a long log file: its write must not meet the spool file's limit.
  ulimit -S -f "$(ulimit -H -f)"
  while IFS= read -r line || [ -n "$line" ]; do printf '%s\n' "$line" >&3; done < "$home/limit-exceeded"
  exit 2
fi
if [ -n "$own_home" ] && [ "${2:-}" = prompt ] && [ -f "$home/limit-warning" ]; then
  ulimit -S -f "$(ulimit -H -f)"
  while IFS= read -r line || [ -n "$line" ]; do printf '%s\n' "$line"; done < "$home/limit-warning"
  rm -f "$home/limit-warning"
fi
exit 0
