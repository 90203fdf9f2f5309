#!/usr/bin/env bash
# Installable, so plugins build outside the tree: `cmake --install BUILD --prefix TMP`, then the
# example plugins built out of tree against the installed header, once through the CMake
# package (find_package(tilelens)) and once through pkg-config, and replayed by the installed
# tilelens: their runs must equal the built-in EAGER + LRU's. Usage: install_and_build_plugins.sh BUILD OUT
set -euo pipefail
build=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
prefix=$out/prefix
cmake --install "$build" --prefix "$prefix" >"$out/install.log"
for file in bin/tilelens lib/tilelens/libtilelens_cbc.so include/tilelens/plugin.h share/doc/tilelens/plugins.md share/doc/tilelens/README.md \
            share/doc/tilelens/examples/plugins/CMakeLists.txt share/doc/tilelens/examples/plugins/eager.c; do
  [ -e "$prefix/$file" ] || { echo "not installed: $file"; exit 1; }
done
config=$(find "$prefix" -name tilelensConfig.cmake | head -1)
pc=$(find "$prefix" -name tilelens-plugin.pc | head -1)
[ -n "$config" ] || { echo "not installed: tilelensConfig.cmake"; exit 1; }
[ -n "$pc" ] || { echo "not installed: tilelens-plugin.pc"; exit 1; }
if [ -e "$build/app/gui/tilelens-gui" ]; then
  for file in bin/tilelens-gui share/applications/tilelens-gui.desktop share/icons/hicolor/scalable/apps/tilelens.svg; do
    [ -e "$prefix/$file" ] || { echo "not installed: $file"; exit 1; }
  done
fi
# Out of tree, through the CMake package.
cmake -S "$prefix/share/doc/tilelens/examples/plugins" -B "$out/plugins" -DCMAKE_PREFIX_PATH="$prefix" >"$out/configure.log"
cmake --build "$out/plugins" >"$out/build.log"
# Out of tree, through pkg-config.
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags tilelens-plugin)
cc -std=c99 -O2 -shared -fPIC $flags "$prefix/share/doc/tilelens/examples/plugins/lru.c" -o "$out/liblru_pc.so"
# Replayed by the installed program: the same loads, evictions and makespan as the built-ins.
tilelens=$prefix/bin/tilelens
"$tilelens" replay --workload cholesky:N=8 --gpus 2 --memory 40MiB --json >"$out/builtin.json"
"$tilelens" replay --workload cholesky:N=8 --gpus 2 --memory 40MiB --scheduler "$out/plugins/libeager_plugin.so" \
  --eviction "$out/liblru_pc.so" --json >"$out/plugin.json"
python3 - "$out/builtin.json" "$out/plugin.json" <<'PY'
import json, sys
a, b = (json.load(open(path)) for path in sys.argv[1:3])
fields = ("loads", "evictions", "makespan_ns", "bytes_loaded")
def value(run, key):
    for part in (run, run.get("summary", {}), run.get("metrics", {})):
        if isinstance(part, dict) and key in part:
            return part[key]
    raise SystemExit("no %s in %s" % (key, sorted(run)))
for key in fields:
    if value(a, key) != value(b, key):
        raise SystemExit("%s: built-in %s, plugins %s" % (key, value(a, key), value(b, key)))
if "lru-example" not in json.dumps(b) or "eager-example" not in json.dumps(b):
    raise SystemExit("the plugin run does not name its plugins")
print("installed tilelens replays the out-of-tree plugins as the built-ins: " + ", ".join("%s %s" % (k, value(a, k)) for k in fields))
PY
# The Python module, where Debian's python3 finds it under the prefix, loading the same
# out-of-tree plugins (only when the build made it: app/python).
if ls "$build"/python/tilelens/_tilelens*.so >/dev/null 2>&1; then
  module_dir=$prefix/lib/python3/dist-packages
  ls "$module_dir"/tilelens/_tilelens*.so "$module_dir/tilelens/__init__.py" >/dev/null || { echo "not installed: the Python module"; exit 1; }
  ls "$prefix/share/doc/tilelens/examples/python/compare.py" >/dev/null || { echo "not installed: examples/python"; exit 1; }
  (cd "$out" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$module_dir /usr/bin/python3 - "$out/builtin.json" "$out/plugins/libeager_plugin.so" "$out/liblru_pc.so" <<'PY'
import json, sys
import tilelens
assert tilelens.__file__.startswith(sys.path[1]) or "dist-packages" in tilelens.__file__, tilelens.__file__
builtin = json.load(open(sys.argv[1]))
run = tilelens.replay("cholesky:N=8", sys.argv[2], sys.argv[3], gpus=2, memory="40MiB")
for key in ("loads", "evictions", "makespan_ns"):
    if run[key] != builtin[key]:
        raise SystemExit("python: %s: built-in %s, plugins %s" % (key, builtin[key], run[key]))
print("the installed Python module replays the out-of-tree plugins as the built-ins (%s)" % tilelens.__file__)
PY
  )
fi
