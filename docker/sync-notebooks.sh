#!/usr/bin/env bash
# docker/sync-notebooks.sh — give a learner working copies of the course notebooks, never losing their work.
#
# The image ships the notebooks read-only in $WHYGPU_ROOT/notebooks; learners work on copies in a volume
# ($HOME/work). This runs at every container start (docker/before-notebook.d/50-whygpu-notebooks.sh) and
# in JupyterHub before each single-user server starts. For each lesson file of the image:
#
#   not in work/ yet                    -> copied (a deleted copy comes back: delete yours to start over)
#   in work/, unchanged in the image    -> left alone
#   changed in the image, copy untouched-> replaced by the new version (nothing of the learner's is lost)
#   changed in the image, copy edited   -> the copy is kept; the new version appears beside it as
#                                          "NN-topic (updated YYYY-MM-DD).ipynb"
#   in work/ before any sync, different -> kept; the image's version appears beside it, as above
#
# What was copied is remembered in work/.whygpu-lessons.sha256 (sha256 of the image's version of each file
# at the time it was copied), so an update is offered once, not at every start. Lessons that disappear
# from the image are left in work/ untouched. Files are written atomically (temp file + rename) and made
# writable by the learner.
#
# Usage: sync-notebooks.sh [SRC [DEST]]
#   SRC   default $WHYGPU_ROOT/notebooks (WHYGPU_ROOT defaults to the checkout this script is in)
#   DEST  default $WHYGPU_WORK, else $HOME/work
#   WHYGPU_SYNC_DATE  the date in "(updated DATE)" names (default: today, UTC)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${WHYGPU_ROOT:-$(dirname "$here")}"
SRC="${1:-$ROOT/notebooks}"
DEST="${2:-${WHYGPU_WORK:-$HOME/work}}"
DATE="${WHYGPU_SYNC_DATE:-$(date -u +%Y-%m-%d)}"
MANIFEST="$DEST/.whygpu-lessons.sha256"

log() { printf 'whygpu-notebooks: %s\n' "$*"; }

[ -d "$SRC" ] || { log "no notebooks at $SRC; nothing to do"; exit 0; }
mkdir -p "$DEST"

hash_of() { sha256sum < "$1" | cut -d' ' -f1; }

# recorded NAME -> the sha256 of the image's version last copied for it ("" when none)
declare -A recorded=()
if [ -f "$MANIFEST" ]; then
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    recorded["${line#*  }"]="${line%%  *}"
  done < "$MANIFEST"
fi

# copy SRCFILE to DESTFILE atomically, writable by the learner
install_copy() {
  local tmp
  tmp="$(mktemp "$(dirname "$2")/.whygpu-sync.XXXXXX")"
  cp "$1" "$tmp"
  chmod u+rw,go+r "$tmp"
  mv -f "$tmp" "$2"
}

# "03-topic.ipynb" -> "03-topic (updated DATE).ipynb", with " 2", " 3"... if that name is taken by
# another content
beside_name() {
  local name="$1" want="$2" stem ext candidate n=1
  if [[ "$name" == *.* ]]; then stem="${name%.*}"; ext=".${name##*.}"; else stem="$name"; ext=""; fi
  while :; do
    if [ "$n" = 1 ]; then candidate="$stem (updated $DATE)$ext"; else candidate="$stem (updated $DATE $n)$ext"; fi
    if [ ! -e "$DEST/$candidate" ] || [ "$(hash_of "$DEST/$candidate")" = "$want" ]; then
      printf '%s' "$candidate"
      return
    fi
    n=$((n + 1))
  done
}

copied=0 updated=0 beside=0
declare -A now=()
while IFS= read -r -d '' f; do
  name="${f#"$SRC"/}"
  up="$(hash_of "$f")"
  now["$name"]="$up"
  target="$DEST/$name"
  mkdir -p "$(dirname "$target")"
  last="${recorded[$name]:-}"
  if [ ! -e "$target" ]; then
    install_copy "$f" "$target"; copied=$((copied + 1))
    log "copied $name"
  elif [ "$up" = "$last" ]; then
    :   # the image's version is the one already given
  else
    mine="$(hash_of "$target")"
    if [ "$mine" = "$up" ]; then
      :   # the copy already is the image's version
    elif [ -n "$last" ] && [ "$mine" = "$last" ]; then
      install_copy "$f" "$target"; updated=$((updated + 1))
      log "updated $name (the copy had not been edited)"
    else
      other="$(beside_name "$name" "$up")"
      if [ ! -e "$DEST/$other" ]; then
        install_copy "$f" "$DEST/$other"; beside=$((beside + 1))
        log "kept your $name; the new version is $other"
      fi
    fi
  fi
done < <(find "$SRC" -type f ! -name '.*' ! -path '*/.ipynb_checkpoints/*' -print0 | sort -z)

# Record what the image holds now; keep records of lessons the image no longer has.
tmp="$(mktemp "$DEST/.whygpu-sync.XXXXXX")"
{
  for name in "${!recorded[@]}"; do
    [ -n "${now[$name]+x}" ] || printf '%s  %s\n' "${recorded[$name]}" "$name"
  done
  for name in "${!now[@]}"; do printf '%s  %s\n' "${now[$name]}" "$name"; done
} | sort -k2 > "$tmp"
chmod 0644 "$tmp"
mv -f "$tmp" "$MANIFEST"

log "$DEST: $copied copied, $updated updated, $beside new versions beside edited copies"
