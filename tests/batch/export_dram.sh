#!/bin/sh
# Exports give a layer's bytes by memory, DRAM's (what memory bandwidth is
# tuned for) and on-chip CV-SRAM's, after the columns and args they had, so
# that existing consumers read what they read before: the "layers" CSV ends
# with bytes_dram and bytes_cvsram, the "perf" CSV has rows of those names
# after bytes_written, and each layer slice of the Chrome trace has them as
# its last args.  traces/bdma_copy copies DRAM -> CV-SRAM (layer 0, 2048
# bytes) and back (layer 1, 1024): half of each layer's bytes are DRAM's;
# sample:bdma copies within DRAM: all of its bytes are.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

# export_all NAME FILE ARGS...: the three exports of a run as NAME.*
export_all() {
    _name=$1
    shift
    run_exit 0 "exports of $_name" --batch -q "$@" -ex run \
        -ex "export csv $_name.layers.csv --decoder layers" \
        -ex "export csv $_name.perf.csv --decoder perf" -ex "export chrome $_name.json"
}

export_all copy --config nv_full "$top/traces/bdma_copy"
export_all sample sample:bdma

header='"index","unit","op","group","start_cycle","end_cycle","cycles","macs","bytes_read","bytes_written","stall_cycles","state","work","work_unit","bytes_dram","bytes_cvsram"'
for f in copy sample; do
    [ "$(head -n 1 $f.layers.csv | tr -d '\r')" = "$header" ] ||
        fail "$f.layers.csv: header $(head -n 1 $f.layers.csv)"
done
# the last four cells of a layer's row: work, work_unit, bytes_dram, bytes_cvsram
tail_cells() {
    tr -d '\r' <"$1" | awk -F'","' -v i="$2" 'NR == i + 2 { print $13, $14, $15, $16 }' | tr -d '"'
}
[ "$(tail_cells copy.layers.csv 0)" = "2048 bytes 2048 2048" ] ||
    fail "copy layer 0: $(tail_cells copy.layers.csv 0)"
[ "$(tail_cells copy.layers.csv 1)" = "1024 bytes 1024 1024" ] ||
    fail "copy layer 1: $(tail_cells copy.layers.csv 1)"
[ "$(tail_cells sample.layers.csv 0)" = "1024 bytes 2048 0" ] ||
    fail "sample layer 0: $(tail_cells sample.layers.csv 0)"

# perf: the rows of layer 0 from bytes_read on, in order
perf_bytes() {
    tr -d '\r"' <"$1" | awk -F, '$1 == 0 && $3 ~ /^bytes_/ { printf "%s=%s ", $3, $4 }'
}
[ "$(perf_bytes copy.perf.csv)" = "bytes_read=2048 bytes_written=2048 bytes_dram=2048 bytes_cvsram=2048 " ] ||
    fail "copy.perf.csv: $(perf_bytes copy.perf.csv)"
[ "$(perf_bytes sample.perf.csv)" = "bytes_read=1024 bytes_written=1024 bytes_dram=2048 bytes_cvsram=0 " ] ||
    fail "sample.perf.csv: $(perf_bytes sample.perf.csv)"

# chrome: the slice's args end with them
expect_grep "$(cat copy.json)" '"name":"layer 0 BDMA".*"bytes_read":2048,"bytes_written":2048,"stall_cycles":[0-9]*,"bytes_dram":2048,"bytes_cvsram":2048}}'
expect_grep "$(cat copy.json)" '"name":"layer 1 BDMA".*"bytes_read":1024,"bytes_written":1024,"stall_cycles":[0-9]*,"bytes_dram":1024,"bytes_cvsram":1024}}'
expect_grep "$(cat sample.json)" '"name":"layer 0 BDMA".*"bytes_read":1024,"bytes_written":1024,"stall_cycles":[0-9]*,"bytes_dram":2048,"bytes_cvsram":0}}'
echo ok
