#!/usr/bin/env python3
"""Prepare a generated nvdla/hw project folder for the calibration runs (README.md, steps 4
and 8).  Run it before verilating:

    python3 tests/calibration/patch_testbench.py OUTDIR/nv_small

It edits two files of that folder, neither of which changes what the RTL computes:
  verilator/nvdla.cpp   the testbench: print "(TICK) intr rise" when dla_intr goes from 0 to
                        1, and tie the RTL's tmc2slcg_disable_clock_gating input to 1 when
                        the environment has NVDLA_NO_CLOCK_GATING (NVIDIA's testbench ties
                        it to 0; see README, "Whole networks", for why networks need 1)
  vmod/nvdla/glb/NV_NVDLA_GLB_ic.v
                        GLB's interrupt controller: a $display of the core clock cycle when
                        each interrupt status bit is set and when the interrupt line rises
                        ("PROBE GLB ..."; rtl_network.py reads them)
  vmod/vlibs/NV_DW02_tree.v
                        the carry-save adder tree the CMAC multipliers use (1,024 of them
                        on nv_full) copies each input word into a slice bit by bit; the
                        same copy as one part-select gives the same values and halves the
                        C++ Verilator writes for nv_full's CMAC (README, step 3)
Running it twice changes nothing more.
"""
import os
import sys

MARK = 'dladbg calibration'

INTR_RISE = '''\t\t{ /* %s: the interrupt line's rising edge */
\t\t\tstatic int intr_was = 0;
\t\t\tif (dla->dla_intr && !intr_was)
\t\t\t\tprintf("(%%lu) intr rise\\n", ticks);
\t\t\tintr_was = dla->dla_intr;
\t\t}
''' % MARK

GATING_OLD = '\tdla->tmc2slcg_disable_clock_gating = 0;\n'
GATING_NEW = ('\tdla->tmc2slcg_disable_clock_gating = getenv("NVDLA_NO_CLOCK_GATING") ? 1 : 0;'
              ' /* %s */\n' % MARK)

BITS = ['sdp_done_status0', 'sdp_done_status1', 'cdp_done_status0', 'cdp_done_status1',
        'pdp_done_status0', 'pdp_done_status1', 'cdma_dat_done_status0',
        'cdma_dat_done_status1', 'cdma_wt_done_status0', 'cdma_wt_done_status1',
        'cacc_done_status0', 'cacc_done_status1']


def glb_probe():
    lines = ['// %s: the core clock cycle each interrupt status bit is set, and the line rises'
             % MARK,
             'reg [63:0] probe_cycle;',
             'reg [%d:0] probe_was;' % (len(BITS) - 1),
             'reg probe_intr_was;',
             'wire [%d:0] probe_now = {%s};' % (len(BITS) - 1, ', '.join(reversed(BITS))),
             'always @(posedge nvdla_core_clk or negedge nvdla_core_rstn) begin',
             '    if (!nvdla_core_rstn) begin',
             '        probe_cycle <= 0; probe_was <= 0; probe_intr_was <= 0;',
             '    end else begin',
             '        probe_cycle <= probe_cycle + 1;',
             '        probe_was <= probe_now;',
             '        probe_intr_was <= core_intr;',
             '        if (core_intr & ~probe_intr_was)',
             '            $display("PROBE GLB %0d core_intr rise", probe_cycle);']
    for i, bit in enumerate(BITS):
        lines += ['        if (probe_now[%d] & ~probe_was[%d])' % (i, i),
                  '            $display("PROBE GLB %%0d set %s", probe_cycle);' % bit.upper()]
    lines += ['    end', 'end', '']
    return '\n'.join(lines)


TREE_SLICE_OLD = '''        for (j=0 ; j < input_width ; j=j+1) begin
            input_slice[j] = INPUT[i*input_width+j];
        end
        input_array[i] = input_slice;
'''
TREE_SLICE_NEW = ('        // %s: the same slice as one part-select, not bit by bit\n'
                  '        input_array[i] = INPUT[i*input_width +: input_width];\n' % MARK)


def patch(path, edits):
    with open(path) as f:
        text = f.read()
    if MARK in text:
        print('%s: already prepared' % path)
        return
    for old, new in edits:
        if text.count(old) != 1:
            sys.exit('patch_testbench: %s: expected one "%s"' % (path, old.strip()))
        text = text.replace(old, new)
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.rename(tmp, path)
    print('%s: prepared' % path)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    top = sys.argv[1]
    wait = '\t\tif (waiting && dla->dla_intr) {\n'
    patch(os.path.join(top, 'verilator', 'nvdla.cpp'),
          [(wait, INTR_RISE + wait), (GATING_OLD, GATING_NEW)])
    end = 'endmodule // NV_NVDLA_GLB_ic'
    patch(os.path.join(top, 'vmod', 'nvdla', 'glb', 'NV_NVDLA_GLB_ic.v'),
          [(end, glb_probe() + end)])
    patch(os.path.join(top, 'vmod', 'vlibs', 'NV_DW02_tree.v'),
          [(TREE_SLICE_OLD, TREE_SLICE_NEW)])


if __name__ == '__main__':
    main()
