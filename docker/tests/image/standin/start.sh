#!/bin/bash
# Stand-in for docker-stacks-foundation's start.sh: run the hooks of /usr/local/bin/start-notebook.d and
# before-notebook.d (*.sh sourced, other executables run; a failing hook is reported and start-up goes on,
# as run-hooks.sh does), then run the command, as NB_USER when started as root (sudo, as start.sh does).
# Not covered: NB_USER/NB_UID changes, CHOWN_HOME, GRANT_SUDO, JUPYTER_ENV_VARS_TO_UNSET.
set -e
[ $# -gt 0 ] || set -- bash
run_hooks() {
    local hook
    echo "start.sh (stand-in): running hooks in $1 as uid $(id -u)"
    for hook in "$1"/*; do
        [ -e "$hook" ] || continue
        case "$hook" in
            *.sh) set +e; source "$hook"; [ $? = 0 ] || echo "start.sh (stand-in): $hook failed, continuing"; set -e ;;
            *) if [ -x "$hook" ]; then "$hook" || echo "start.sh (stand-in): $hook failed, continuing"; fi ;;
        esac
    done
}
run_hooks /usr/local/bin/start-notebook.d
run_hooks /usr/local/bin/before-notebook.d
if [ "$(id -u)" = 0 ]; then
    exec sudo --preserve-env --set-home --user "$NB_USER" PATH="$PATH" "$@"
fi
exec "$@"
