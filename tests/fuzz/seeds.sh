#!/bin/sh
# seeds.sh OUT DATA TOP: run-time seeds for the fuzz harnesses, in OUT/NAME/:
# the sample loadables the build wrote (TOP/build/samples) and, when the
# folder DATA exists, NVIDIA's loadables, traceplayer folders, v2 .cfg tests
# and golden images, as the harnesses take them (trace folders as bundles,
# see fuzz_util.h).  Nothing is copied into the project.
set -u
out=$1 data=$2 top=$3
rm -rf "$out"
mkdir -p "$out/loadable" "$out/runtime" "$out/txn" "$out/cfg" "$out/image" "$out/cmd"
small() { [ "$(wc -c <"$1")" -le "$2" ]; } # FILE BYTES
for f in "$top"/build/samples/*.nvdla; do
    [ -f "$f" ] || continue
    cp "$f" "$out/loadable/" && cp "$f" "$out/runtime/"
done
bundle() { # OUT MAIN FILE...: the first file, then "#@ NAME" and each other
    o=$1 main=$2
    shift 2
    { cat "$main"; for f in "$@"; do printf '\n#@ %s\n' "$(basename "$f")"; cat "$f"; done; } >"$o"
}
bundle_traces() { # PREFIX FOLDER...: each traceplayer folder with the small .dat files it names
    prefix=$1
    shift
    for dir in "$@"; do
        [ -f "$dir/input.txn" ] || continue
        bundle "$out/txn/${prefix}_$(basename "$dir")" "$dir/input.txn" \
            $(grep -o '[A-Za-z0-9_.-]*\.dat' "$dir/input.txn" | sort -u | sed "s|^|$dir/|" |
                while read -r f; do [ -f "$f" ] && small "$f" 32768 && echo "$f"; done)
    done
}
bundle_traces project "$top"/traces/*/
[ -d "$data" ] || exit 0
for f in "$data"/loadables/*/*.nvdla; do
    [ -f "$f" ] && small "$f" 262144 || continue
    cp "$f" "$out/loadable/" && cp "$f" "$out/runtime/"
done
for f in "$data"/networks/*/images/*.jpg; do
    [ -f "$f" ] && small "$f" 16384 && cp "$f" "$out/image/$(basename "$(dirname "$(dirname "$f")")")_$(basename "$f")"
done
for f in "$data"/loadables/*/golden.dimg; do
    [ -f "$f" ] && small "$f" 65536 && cp "$f" "$out/image/$(basename "$(dirname "$f")").dimg"
done
bundle_traces nvidia "$data"/traces/*/
for cfg in "$data"/traces_v2/nv_small/*/*.cfg; do
    [ -f "$cfg" ] || continue
    dir=$(dirname "$cfg")
    bundle "$out/cfg/$(basename "$cfg" .cfg)" "$cfg" \
        $(for f in "$dir"/*.dat; do [ -f "$f" ] && small "$f" 32768 && echo "$f"; done)
done
exit 0
