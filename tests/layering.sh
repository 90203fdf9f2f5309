#!/usr/bin/env bash
# The layering of the README's "Layout": each library includes only itself and the folders
# listed for it below (its dependencies, transitively), nothing but app/gui includes Qt, and
# the two front ends never include each other. Prints every violation and fails on any.
set -u
cd "$(dirname "$0")/.."
declare -A allowed=(
  [util]=""
  [model]="util"
  [runtime]="util model"
  [presets]="util model"
  [trace]="util model runtime"
  [analysis]="util model runtime trace"
  [schedulers]="util model runtime"
  [eviction]="util model runtime schedulers"
  [replay]="util model runtime schedulers eviction trace"
  [formats]="util model runtime presets trace"
  [db]="util model runtime presets trace formats"
  [instrument]="util model runtime presets trace schedulers eviction replay"
  [core]="util model runtime presets trace analysis schedulers eviction replay formats db instrument"
  [app/cli]="util model runtime presets trace analysis schedulers eviction replay formats db instrument core"
  [app/gui]="util model runtime presets trace analysis schedulers eviction replay formats db instrument core"
)
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
