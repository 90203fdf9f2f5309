#!/usr/bin/env bash
# The layering of the README's "Layout": each library includes only itself and the folders it
# depends on, directly (as the README's table lists them) or through them, nothing but app/gui
# includes Qt, and the three front ends (CLI, app, Python module) never include each other. Prints every violation and
# fails on any.
set -u
cd "$(dirname "$0")/.."
declare -A depends=(
  [util]=""
  [include]=""
  [model]="util"
  [runtime]="model"
  [presets]="model"
  [trace]="model runtime"
  [analysis]="trace"
  [schedulers]="runtime include"
  [eviction]="schedulers"
  [replay]="eviction trace"
  [formats]="presets trace"
  [db]="formats"
  [instrument]="presets replay"
  [core]="analysis db instrument"
  [app/cli]="core"
  [app/gui]="core"
  [app/python]="core"
)
# A folder's dependencies, through every level.
closure() {
  local folder dependency
  local -A seen=()
  local pending=(${depends[$1]})
  while [ ${#pending[@]} -gt 0 ]; do
    folder=${pending[0]}
    pending=("${pending[@]:1}")
    [ -n "${seen[$folder]:-}" ] && continue
    seen[$folder]=1
    for dependency in ${depends[$folder]}; do pending+=("$dependency"); done
  done
  [ ${#seen[@]} -gt 0 ] && printf '%s\n' "${!seen[@]}" | sort | paste -sd' '
}
declare -A allowed=()
for folder in "${!depends[@]}"; do allowed[$folder]=$(closure "$folder"); done
# The front ends see the core's API only: core/ re-exports the types they use (core/units.hpp,
# core/store.hpp, ...), so they include core/ and their own headers, nothing below.
allowed[app/cli]=core
allowed[app/gui]=core
allowed[app/python]=core
status=0
for folder in "${!allowed[@]}"; do
  [ -d "$folder" ] || { echo "layering: no folder $folder"; status=1; continue; }
  while IFS= read -r line; do
    file=${line%%:*}
    target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"${line#*:}")
    case "$target" in
      "$folder"/*) continue ;;
      */*) ;;
      *) continue ;;  # a header of the same folder, by its own name (moc files)
    esac
    top=${target%%/*}
    [ "$top" = app ] && top=$(cut -d/ -f1-2 <<<"$target")
    ok=0
    for dependency in ${allowed[$folder]}; do [ "$top" = "$dependency" ] && ok=1; done
    if [ $ok = 0 ]; then
      echo "layering: $file includes $target, but $folder may include only: ${allowed[$folder]:-nothing}"
      status=1
    fi
  done < <(grep -rnE '^#include "' "$folder" --include='*.cpp' --include='*.hpp' | grep -v "^$folder/.*_autogen")
  if [ "$folder" != app/gui ] && grep -rlE '^#include <Q[A-Za-z]' "$folder" --include='*.cpp' --include='*.hpp' | grep -q .; then
    echo "layering: $folder includes Qt:"; grep -rlE '^#include <Q[A-Za-z]' "$folder" --include='*.cpp' --include='*.hpp'
    status=1
  fi
done
[ $status = 0 ] && echo "layering: every include points up the layout"
exit $status
