# Sourced by the docker-stacks start script (start.sh -> run-hooks) before Jupyter starts, as root when
# the container starts as root, else as the learner. Gives the learner working copies of the course
# notebooks in $HOME/work (docker/sync-notebooks.sh). It must never stop the server from starting, so
# a failure is only reported.
if [ "$(id -u)" = 0 ]; then
    sudo --preserve-env --set-home --user "${NB_USER:-jovyan}" \
        "${WHYGPU_ROOT:-/opt/whygpu}/docker/sync-notebooks.sh" \
        || echo "whygpu-notebooks: WARNING: could not copy the course notebooks into ~/work (see above)"
else
    "${WHYGPU_ROOT:-/opt/whygpu}/docker/sync-notebooks.sh" \
        || echo "whygpu-notebooks: WARNING: could not copy the course notebooks into ~/work (see above)"
fi
